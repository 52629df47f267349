"""``python -m conformance capture``: record a session between any client and server as a trace.

Two ways in, one trace format (``conformance/harness/trace.py``, docs/trace-format.md):

- ``stdio.py``: ``capture -o FILE -- SERVER_CMD...`` is the server command a client launches; it starts
  the real server and passes every byte both ways unchanged, recording each line as it goes;
- ``http.py``: ``capture --listen PORT --upstream URL`` is a loopback proxy for Streamable HTTP (and
  2024-11-05's HTTP+SSE) that forwards requests and responses unchanged, streams included.

``recording.py`` holds what both share: where a recording goes, and how a line, a body or an SSE event
becomes trace events.
"""
