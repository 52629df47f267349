"""The harness: an independent wire peer for the implementation under test.

It speaks JSON-RPC on the wire itself and never uses the SDK's session classes to judge the
SDK. ``launcher`` starts servers (forked from a warm parent where the fixture server allows),
``stdio`` moves frames with bounded waits, ``schema`` checks every frame against the pinned
schema of the negotiated revision, ``trace`` records every session as JSONL.
"""
