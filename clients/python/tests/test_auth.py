"""API keys against a paddockd started with --auth (docs/security.md): the
key from the api_key argument or $PADDOCK_API_KEY, a wrong key refused, and
a session shared by a join token."""
import hashlib
import json
import os

import pytest

import paddock
from paddock import errors
from conftest import Server

KEYS = {"alice": ("driver", "k-py-alice-3b9e"), "bob": ("driver", "k-py-bob-71c2")}


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory):
    work = str(tmp_path_factory.mktemp("auth"))
    path = os.path.join(work, "keys.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"keys": [{"name": name, "role": role,
                             "sha256": hashlib.sha256(key.encode()).hexdigest()}
                            for name, (role, key) in KEYS.items()]}, f)
    srv = Server(work, extra=["--auth", path]).start()
    yield srv
    srv.stop()


def test_key_decides_identity_and_tokens_share(auth_server, monkeypatch):
    with paddock.Client(port=auth_server.port, api_key=KEYS["alice"][1]) as alice:
        assert alice.welcome.identity == "alice"
        sid = alice.create_session(name="py-alice").session_id
        monkeypatch.setenv("PADDOCK_API_KEY", KEYS["bob"][1])
        with paddock.Client(port=auth_server.port) as bob:
            assert bob.welcome.identity == "bob"
            with pytest.raises(errors.PermissionDenied, match="identity 'bob'"):
                bob.close_session(sid)
            joined = bob.join_session(alice.share_session(sid, "viewer"))
            assert joined.session_id == sid
            with pytest.raises(errors.PermissionDenied, match="has the role viewer"):
                bob.close_session(sid)
            bob.join_session(alice.share_session(sid, "driver"))
            bob.close_session(sid)


def test_wrong_key_is_refused(auth_server):
    with pytest.raises(errors.Unauthenticated, match="not one of this server's keys"):
        paddock.Client(port=auth_server.port, api_key="k-wrong")
    with pytest.raises(errors.Unauthenticated, match="must carry an api_key"):
        paddock.Client(port=auth_server.port, api_key="")
