"""A virtual card shoe and dealer panel that stand in for the table's hardware."""
