"""Serial drivers for the table's card shoe and dealer panel."""
