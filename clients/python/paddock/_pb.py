"""Loads the generated protobuf module of the wire contract, paddock_pb2.

A build stages it beside this file (paddock/v1/paddock_pb2.py, made by
CMake with protoc). A package used straight from the source tree (an
editable pip install) has none; it is then generated once with the protoc
on PATH from the checkout's proto/ folder into a cache folder keyed by the
contract's hash, so it always matches the proto it was made from.
"""
import hashlib
import importlib
import importlib.util
import os
import shutil
import subprocess
import sys


def _generate_from_checkout():
    here = os.path.dirname(os.path.abspath(__file__))
    proto_root = os.path.normpath(os.path.join(here, "..", "..", "..", "proto"))
    proto = os.path.join(proto_root, "paddock", "v1", "paddock.proto")
    if not os.path.exists(proto):
        raise ImportError(
            "paddock: paddock/v1/paddock_pb2.py is missing and there is no "
            "proto/paddock/v1/paddock.proto beside the package to make it from; "
            "build with cmake and use PYTHONPATH=build/python")
    with open(proto, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    out = os.path.join(cache, "paddock-python", digest)
    target = os.path.join(out, "paddock", "v1", "paddock_pb2.py")
    if not os.path.exists(target):
        protoc = shutil.which("protoc")
        if protoc is None:
            raise ImportError("paddock: protoc is needed to generate paddock_pb2 "
                              "(apt install protobuf-compiler)")
        os.makedirs(out, exist_ok=True)
        subprocess.run([protoc, "--python_out=" + out, "-I", proto_root, proto], check=True)
    spec = importlib.util.spec_from_file_location("paddock.v1.paddock_pb2", target)
    module = importlib.util.module_from_spec(spec)
    sys.modules["paddock.v1.paddock_pb2"] = module
    spec.loader.exec_module(module)
    return module


try:
    pb = importlib.import_module("paddock.v1.paddock_pb2")
except ImportError:
    pb = _generate_from_checkout()
