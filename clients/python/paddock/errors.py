"""Errors: one PaddockError subclass per ErrorCode of the wire contract.

The classes are made from the proto's ErrorCode enum, so a code added to
the contract gets its class without an edit here: INVALID_ARGUMENT is
InvalidArgument, NOT_FOUND NotFound, and so on. A server Error frame
raises the class of its code with the server's message.
"""
from ._pb import pb


class PaddockError(Exception):
    """An Error frame from the server: `code` (an ErrorCode number), `code_name`, `message`."""

    code = None
    code_name = None

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
            self.code_name = pb.ErrorCode.Name(code) if code in pb.ErrorCode.values() else str(code)

    def __str__(self):
        return f"{self.code_name}: {self.message}"


class ConnectionClosed(Exception):
    """The connection ended (the server closed it, or the client did) while a call waited."""


def _class_name(enum_name):
    return "".join(part.capitalize() for part in enum_name.split("_"))


_by_code = {}
for _name, _number in pb.ErrorCode.items():
    if _number == pb.OK:
        continue
    _cls = type(_class_name(_name), (PaddockError,),
                {"code": _number, "code_name": _name,
                 "__doc__": f"The server's ErrorCode {_name} ({_number})."})
    globals()[_cls.__name__] = _cls
    _by_code[_number] = _cls


def error_class(code):
    """The PaddockError subclass of an ErrorCode number (PaddockError itself for an unknown one)."""
    return _by_code.get(code, PaddockError)


def from_frame(error):
    """The exception for an Error message (paddock.v1.Error)."""
    return error_class(error.code)(error.message, error.code)


__all__ = ["PaddockError", "ConnectionClosed", "error_class", "from_frame"] + [
    c.__name__ for c in _by_code.values()]
