"""TLS for the clients (docs/security.md "TLS"): an ssl context that verifies
paddockd's certificate against a CA file, and the name or address it was
reached by, and that may carry a client certificate for a paddockd started
with --tls-client-ca."""
import os
import ssl


def context(tls_ca=None, tls_cert=None, tls_key=None):
    """The client's ssl.SSLContext, or None (in clear) when no CA is given.
    Each argument left None is taken from $PADDOCK_TLS_CA, $PADDOCK_TLS_CERT
    and $PADDOCK_TLS_KEY, as api_key is from $PADDOCK_API_KEY. A certificate
    and its key go together, and only with a CA (ValueError otherwise); a
    file that does not load raises OSError or ssl.SSLError naming it."""
    tls_ca = tls_ca if tls_ca is not None else os.environ.get("PADDOCK_TLS_CA") or None
    tls_cert = tls_cert if tls_cert is not None else os.environ.get("PADDOCK_TLS_CERT") or None
    tls_key = tls_key if tls_key is not None else os.environ.get("PADDOCK_TLS_KEY") or None
    if tls_ca is None:
        if tls_cert or tls_key:
            raise ValueError("tls_cert and tls_key need tls_ca, the CA file paddockd's "
                             "certificate is verified against")
        return None
    if bool(tls_cert) != bool(tls_key):
        raise ValueError("tls_cert and tls_key go together: the client certificate and its key")
    ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=tls_ca)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    if tls_cert:
        ctx.load_cert_chain(tls_cert, tls_key)
    return ctx
