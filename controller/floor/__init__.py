"""The casino floor (docs/floor.md): each table's forwarder, which sends its journal
over NATS JetStream, and the floor, which stores every table's records in PostgreSQL and
witnesses every table's chain. Above the application (it reads the journal and its schema);
below the simulator and the commands."""
