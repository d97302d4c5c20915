//! Shared by the locale tests: locales bash misreads commands under,
//! built with `localedef` and mounted over `/usr/lib/locale` in a user and
//! mount namespace of the test's own (bash loads a locale only from
//! there; the machine gets nothing installed), the payload, and a plain
//! bash as the control.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};

/// (locale name, localedef source, charset, a character whose UTF-8 bytes
/// leave a lead byte before the backslash in that charset).
pub const LOCALES: &[(&str, &str, &str, &str)] = &[
    ("zh_TW.BIG5", "zh_TW", "BIG5", "中"),
    ("zh_HK.BIG5-HKSCS", "zh_HK", "BIG5-HKSCS", "中"),
    ("zh_CN.GBK", "zh_CN", "GBK", "中"),
    ("zh_CN.GB18030", "zh_CN", "GB18030", "中"),
    ("ja_JP.SJIS", "ja_JP", "SHIFT_JIS", "Á"),
];

/// The payload for character `ch`.
pub fn payload(ch: &str) -> String {
    format!("echo \"{ch}\\\"; echo PWNED # \\\"\"")
}

/// What airlock shows and means by it: one `echo` of one string.
pub fn as_shown(ch: &str) -> String {
    format!("{ch}\"; echo PWNED # \"\n")
}

/// Set in the test's second run, inside the namespace.
pub const INSIDE: &str = "AIRLOCK_TEST_LOCALE_NS";

/// Builds the locales into `dir` (`localedef -c`: `Shift_JIS` is not
/// ASCII-compatible, which is the point), with the system's C.UTF-8.
pub fn build_locales(dir: &Path) {
    for (name, source, charset, _) in LOCALES {
        let status = Command::new("localedef")
            .args(["-c", "-i", source, "-f", charset])
            .arg(dir.join(name))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("localedef (Debian: the locales package)");
        // localedef -c warns (status 1) and still writes the locale.
        assert!(
            dir.join(name).join("LC_CTYPE").exists(),
            "localedef did not build {name} ({status}); needs the charset tables (Debian: locales)"
        );
    }
    let utf8 = Path::new("/usr/lib/locale/C.utf8");
    if utf8.is_dir() {
        let status = Command::new("cp")
            .arg("-r")
            .arg(utf8)
            .arg(dir)
            .status()
            .unwrap();
        assert!(status.success());
    }
}

/// True inside the namespace: the test goes on. Outside, builds the
/// locales, runs test `name` again in a namespace where they are the
/// system's, and checks that it passed there.
pub fn in_locale_namespace(name: &str) -> bool {
    if std::env::var_os(INSIDE).is_some() {
        return true;
    }
    let locales = tempfile::tempdir().unwrap();
    build_locales(locales.path());
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg("mount --bind \"$0\" /usr/lib/locale && exec \"$@\"")
        .arg(locales.path())
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(INSIDE, "1")
        .stdin(Stdio::null())
        .output()
        .expect("unshare (util-linux)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "{name} in its namespace: {}\n{text}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    false
}

/// What a plain `bash -c` prints for `script` with `env` set.
pub fn plain_bash(script: &str, env: &[(&str, &str)]) -> String {
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-c", script])
        .env_clear()
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn ran_pwned(text: &str) -> bool {
    text.lines().any(|l| l == "PWNED")
}
