"""``wss://`` for studies on networks the researcher does not control (docs/study.md, "Hosting over
wss://"): Qt's TLS (QSslConfiguration) with a certificate file and its private key on the host,
and on a joining computer the certificate (or its authority) to trust.

``host_tls(cert, key)`` is the host's configuration; ``seat_tls(ca)`` a joining computer's (the
system's authorities when ``ca`` is None, else only the certificates in ``ca``). Every problem (no
TLS in this Qt, a missing or unreadable file, no PEM certificate in it, a key that is not a
private key in PEM or is protected by a pass phrase) is one ``TLSError`` naming the file.
"""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtNetwork import QSsl, QSslCertificate, QSslConfiguration, QSslKey, QSslSocket

from sim.inputs import InputError, read_bytes

#: the largest certificate or key file read
MAX_PEM_BYTES = 1024 * 1024


class TLSError(InputError):
    """A certificate, key or TLS set-up that cannot serve; the text names the file and the reason."""


def tls_missing() -> str | None:
    """Why this Qt cannot do TLS, or None when it can."""
    if QSslSocket.supportsSsl():
        return None
    return ("this Qt has no working TLS backend (Qt's OpenSSL plugin needs libssl 3 on the system, "
            f"found {QSslSocket.sslLibraryVersionString() or 'none'}); wss:// is not available")


def _certificates(path: str | Path, what: str) -> list[QSslCertificate]:
    data = read_bytes(path, TLSError, max_bytes=MAX_PEM_BYTES, kind=what)
    certificates = [c for c in QSslCertificate.fromData(data, QSsl.EncodingFormat.Pem) if not c.isNull()]
    if not certificates:
        raise TLSError(f"{path}: no PEM certificate in it (expected '-----BEGIN CERTIFICATE-----')")
    return certificates


def _private_key(path: str | Path) -> QSslKey:
    data = read_bytes(path, TLSError, max_bytes=MAX_PEM_BYTES, kind="key file")
    if b"ENCRYPTED" in data:
        raise TLSError(f"{path}: the private key is protected by a pass phrase; expected an unprotected key "
                       "(e.g. made with 'openssl req ... -noenc'), readable by the researcher only")
    for algorithm in (QSsl.KeyAlgorithm.Rsa, QSsl.KeyAlgorithm.Ec, QSsl.KeyAlgorithm.Dsa):
        key = QSslKey(data, algorithm, QSsl.EncodingFormat.Pem, QSsl.KeyType.PrivateKey)
        if not key.isNull():
            return key
    raise TLSError(f"{path}: no RSA, EC or DSA private key in PEM in it (expected '-----BEGIN PRIVATE KEY-----')")


def host_tls(cert: str | Path, key: str | Path) -> QSslConfiguration:
    """The host's TLS: its certificate chain (``cert``, the host's own first) and private key."""
    missing = tls_missing()
    if missing:
        raise TLSError(missing)
    chain = _certificates(cert, "certificate file")
    private = _private_key(key)
    if chain[0].publicKey().algorithm() != private.algorithm():
        raise TLSError(f"{key}: an {private.algorithm().name.upper()} key, for a certificate ({cert}) of an "
                       f"{chain[0].publicKey().algorithm().name.upper()} key; expected the certificate's own key")
    config = QSslConfiguration.defaultConfiguration()
    config.setLocalCertificateChain(chain)
    config.setPrivateKey(private)
    config.setPeerVerifyMode(QSslSocket.PeerVerifyMode.VerifyNone)  # participants have no certificates
    config.setProtocol(QSsl.SslProtocol.TlsV1_2OrLater)
    return config


def seat_tls(ca: str | Path | None = None) -> QSslConfiguration:
    """A joining computer's TLS: it checks the host's certificate against the system's authorities,
    or against only the certificates in ``ca`` (the host's own self-signed certificate, say)."""
    missing = tls_missing()
    if missing:
        raise TLSError(missing)
    config = QSslConfiguration.defaultConfiguration()
    if ca is not None:
        config.setCaCertificates(_certificates(ca, "certificate file"))
    config.setPeerVerifyMode(QSslSocket.PeerVerifyMode.VerifyPeer)
    config.setProtocol(QSsl.SslProtocol.TlsV1_2OrLater)
    return config
