//! Certificates for a throwaway MariaDB that speaks TLS, made at test time with the
//! `openssl` command: a private CA, and a server certificate it signed for
//! `127.0.0.1` and `localhost` (so `ssl-mode=VERIFY_IDENTITY` can check the name).
//!
//! Why the command rather than a certificate crate: `scripts/test.sh` installs it with
//! MariaDB, and it keeps a second X.509 stack out of the dependency tree for the sake
//! of tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A CA and a server certificate signed by it, in a temporary folder that goes when
/// this value is dropped.
pub struct TestCertificates {
    dir: tempfile::TempDir,
}

impl TestCertificates {
    /// Creates the CA (`ca.pem`), the server key and certificate (`server-key.pem`,
    /// `server-cert.pem`, valid for `IP:127.0.0.1` and `DNS:localhost`), and a second,
    /// unrelated CA (`other-ca.pem`) for tests of a certificate that must not verify.
    pub fn generate() -> Result<Self, String> {
        let dir = tempfile::Builder::new()
            .prefix("memory-bank-tls-")
            .tempdir()
            .map_err(|e| format!("cannot create a folder for test certificates: {e}"))?;
        let d = dir.path();
        std::fs::write(d.join("server.ext"), "subjectAltName = IP:127.0.0.1, DNS:localhost\n")
            .map_err(|e| format!("cannot write the certificate extensions: {e}"))?;
        for ca in ["ca", "other-ca"] {
            openssl(d, &["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-keyout", &format!("{ca}-key.pem"), "-out", &format!("{ca}.pem"),
                "-subj", &format!("/CN=Memory Bank test {ca}")])?;
        }
        openssl(d, &["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server-key.pem",
            "-out", "server.csr", "-subj", "/CN=localhost"])?;
        openssl(d, &["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
            "-CAcreateserial", "-days", "2", "-extfile", "server.ext", "-out", "server-cert.pem"])?;
        Ok(Self { dir })
    }

    /// The CA that signed the server certificate, for `ssl-ca=`.
    pub fn ca(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// A CA that did not sign the server certificate.
    pub fn other_ca(&self) -> PathBuf {
        self.dir.path().join("other-ca.pem")
    }

    /// `mariadbd` options that turn TLS on with these certificates
    /// (for [`super::MariaDb::start_with`]).
    pub fn server_args(&self) -> Vec<String> {
        let d = self.dir.path();
        vec![
            format!("--ssl-ca={}", d.join("ca.pem").display()),
            format!("--ssl-cert={}", d.join("server-cert.pem").display()),
            format!("--ssl-key={}", d.join("server-key.pem").display()),
        ]
    }
}

fn openssl(dir: &Path, args: &[&str]) -> Result<(), String> {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run openssl (install the `openssl` package): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("openssl {} failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr)))
    }
}
