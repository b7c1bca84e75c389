"""Frames on a byte stream: protobuf's varint length-delimited form.

Each Frame is a base-128 varint of its byte length, then its bytes
(docs/protocol.md "Framing"). The length counts the frame alone.
"""


def encode_varint(value):
    """The base-128 varint bytes of a non-negative integer."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def delimit(frame_bytes):
    """A serialized frame with its length prefix in front."""
    return encode_varint(len(frame_bytes)) + frame_bytes


class FrameTooLarge(Exception):
    """A peer declared a frame larger than the agreed limit."""


class FrameReader:
    """Cuts whole frames out of bytes fed in pieces, as they arrive."""

    def __init__(self, max_frame_bytes):
        self.max_frame_bytes = max_frame_bytes
        self._buf = bytearray()

    def feed(self, data):
        """Adds received bytes; returns the list of whole frames' bytes now complete."""
        self._buf += data
        frames = []
        while True:
            length = 0
            shift = 0
            pos = 0
            while True:
                if pos >= len(self._buf):
                    return frames
                byte = self._buf[pos]
                pos += 1
                length |= (byte & 0x7F) << shift
                shift += 7
                if not byte & 0x80:
                    break
                if shift > 63:
                    raise FrameTooLarge("a frame's length prefix is longer than 10 bytes")
            if length > self.max_frame_bytes:
                raise FrameTooLarge(f"the peer declared a frame of {length} bytes, above the "
                                    f"limit of {self.max_frame_bytes}")
            if len(self._buf) - pos < length:
                return frames
            frames.append(bytes(self._buf[pos:pos + length]))
            del self._buf[:pos + length]
