"""The engine as a process and the wire to it: ``engine_core`` runs the step loop on the far side of a pipe or
socket, ``client`` is its async client on the caller's event loop (reading frames with ``frame_reader``), and
``heartbeat``, ``error_info`` and ``startup`` are what the two sides share beside the messages: the loop's liveness
counter, an engine exception as data, and the start-up phase lines. The package itself imports nothing, so a caller
loading the client never loads the core's torch-bound step loop.
"""
