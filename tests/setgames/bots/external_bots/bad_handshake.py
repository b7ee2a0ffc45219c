"""Claims a protocol version the arena does not speak."""
from _proto import send, serve

serve(lambda msg: msg["legal"][0][0], on_hello=lambda msg: send({"type": "hello", "protocol": 99}))
