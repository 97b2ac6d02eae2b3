"""A virtual card shoe and dealer panel that stand in for the table's hardware.

``simulator.table.Simulator`` runs the devices. Importing the package registers
nothing: the ``sim://`` pyserial URL scheme (``simulator.protocol_sim``) is registered
when the first in-process device that answers it is made
(``simulator.transports.MemoryEndpoint``).

Test equipment (docs/app.md, Layers): it may use every package of the product below the
command line (the running table, the floor, the drivers, ...); the product never imports it,
but for the commands that run it (``tablectl demo``, ``tablectl sim``, ``tablectl floor demo``).
"""
