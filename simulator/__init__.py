"""A virtual card shoe and dealer panel that stand in for the table's hardware.

Importing the package registers the ``sim://`` pyserial URL scheme
(``simulator.protocol_sim``); ``simulator.table.Simulator`` runs the devices.
"""

from simulator.transports import register_url_handler

register_url_handler()
