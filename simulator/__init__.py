"""A virtual card shoe and dealer panel that stand in for the table's hardware.

``simulator.table.Simulator`` runs the devices. Importing the package registers
nothing: the ``sim://`` pyserial URL scheme (``simulator.protocol_sim``) is registered
when the first in-process device that answers it is made
(``simulator.transports.MemoryEndpoint``).
"""
