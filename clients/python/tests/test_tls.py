"""TLS from the Python package against a paddockd with --tls-cert, --tls-key
and a required client certificate, all made at test time by the openssl
command (docs/security.md "TLS"): the CA's client certificate drives a
session, sync and asyncio; none, or one from another CA, is refused; a
client in clear is told the port speaks TLS."""
import asyncio
import os
import ssl
import subprocess

import pytest

import paddock
from paddock import aio, errors
from conftest import Server


def _openssl(work, *args):
    subprocess.run(["openssl", *args], cwd=work, check=True, capture_output=True)


def _key(work, name):
    _openssl(work, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-out", name)


def _signed(work, name, cn, ca, ext):
    _key(work, f"{name}.key")
    _openssl(work, "req", "-new", "-key", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={cn}")
    _openssl(work, "x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
             "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", f"{name}.pem")


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory):
    work = str(tmp_path_factory.mktemp("tls"))
    for ca in ("ca", "other-ca"):
        _key(work, f"{ca}.key")
        _openssl(work, "req", "-x509", "-new", "-key", f"{ca}.key", "-out", f"{ca}.pem", "-days",
                 "2", "-subj", f"/CN={ca}")
    with open(os.path.join(work, "srv.ext"), "w", encoding="ascii") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    with open(os.path.join(work, "cli.ext"), "w", encoding="ascii") as f:
        f.write("extendedKeyUsage=clientAuth\n")
    _signed(work, "server", "paddockd-test", "ca", "srv.ext")
    _signed(work, "rig", "rig-py", "ca", "cli.ext")
    _signed(work, "rogue", "rogue", "other-ca", "cli.ext")
    path = lambda name: os.path.join(work, name)  # noqa: E731
    srv = Server(work, extra=["--tls-cert", path("server.pem"), "--tls-key", path("server.key"),
                              "--tls-client-ca", path("ca.pem"),
                              "--tls-require-client-cert"]).start()
    srv.path = path
    yield srv
    srv.stop()


def test_client_certificate_drives_a_session(tls_server):
    p = tls_server.path
    with paddock.Client(port=tls_server.port, tls_ca=p("ca.pem"), tls_cert=p("rig.pem"),
                        tls_key=p("rig.key")) as c:
        sid = c.create_session(name="py-tls").session_id
        assert c.spawn(sid, "ref1_sedan").vehicle_id > 0
    assert "client certificate /CN=rig-py" in tls_server.log()


def test_asyncio_client_over_tls(tls_server, monkeypatch):
    p = tls_server.path
    monkeypatch.setenv("PADDOCK_TLS_CA", p("ca.pem"))
    monkeypatch.setenv("PADDOCK_TLS_CERT", p("rig.pem"))
    monkeypatch.setenv("PADDOCK_TLS_KEY", p("rig.key"))

    async def run():
        async with await aio.connect(port=tls_server.port) as c:
            return [s.name for s in await c.list_sessions()]

    assert "py-tls" in asyncio.run(run())


def test_missing_or_foreign_client_certificate_is_refused(tls_server):
    p = tls_server.path
    with pytest.raises(ssl.SSLError, match="CERTIFICATE_REQUIRED"):
        with paddock.Client(port=tls_server.port, tls_ca=p("ca.pem"), timeout=5):
            pass
    with pytest.raises(ssl.SSLError, match="UNKNOWN_CA"):
        with paddock.Client(port=tls_server.port, tls_ca=p("ca.pem"), tls_cert=p("rogue.pem"),
                            tls_key=p("rogue.key"), timeout=5):
            pass


def test_server_certificate_from_another_ca_is_refused(tls_server):
    with pytest.raises(ssl.SSLCertVerificationError, match="certificate verify failed"):
        paddock.Client(port=tls_server.port, tls_ca=tls_server.path("other-ca.pem"), timeout=5)


def test_client_in_clear_is_told(tls_server):
    with pytest.raises(errors.PaddockError, match="this port speaks TLS"):
        paddock.Client(port=tls_server.port, timeout=5)


def test_certificate_without_ca_is_a_usage_error():
    with pytest.raises(ValueError, match="need tls_ca"):
        paddock.Client(port=1, tls_cert="rig.pem", tls_key="rig.key")
