//! RFC 3339 timestamps in UTC, written byte for byte as chrono writes them
//! but without its formatting machinery (a call's records carry four).

use chrono::{DateTime, Datelike, SecondsFormat, Timelike, Utc};

/// How many digits of the second's fraction are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fraction {
    /// Always six (chrono's `SecondsFormat::Micros`): the trail's `ts`.
    Micros,
    /// None, three, six or nine: as many as the time needs (chrono's
    /// `SecondsFormat::AutoSi`, which chrono's serde uses).
    Auto,
}

/// A formatted timestamp (`2026-12-01T19:34:11.672221755Z`; chrono's
/// signed years are longer).
pub struct Stamp {
    buf: [u8; 40],
    len: usize,
}

impl Stamp {
    /// `t` in RFC 3339 with `Z`, as `t.to_rfc3339_opts(.., true)` writes it.
    pub fn new(t: &DateTime<Utc>, fraction: Fraction) -> Self {
        let mut s = Stamp {
            buf: [0; 40],
            len: 0,
        };
        let nanos = t.nanosecond();
        // Years chrono writes with a sign, and leap seconds: chrono's way.
        let year = t.year();
        if !(0..=9999).contains(&year) || nanos >= 1_000_000_000 {
            let text = t.to_rfc3339_opts(fraction.into(), true);
            s.push(text.as_bytes());
            return s;
        }
        s.digits(u32::try_from(year).unwrap_or(0), 4);
        s.push(b"-");
        s.digits(t.month(), 2);
        s.push(b"-");
        s.digits(t.day(), 2);
        s.push(b"T");
        s.digits(t.hour(), 2);
        s.push(b":");
        s.digits(t.minute(), 2);
        s.push(b":");
        s.digits(t.second(), 2);
        let (value, width) = match fraction {
            Fraction::Micros => (nanos / 1000, 6),
            Fraction::Auto if nanos == 0 => (0, 0),
            Fraction::Auto if nanos.is_multiple_of(1_000_000) => (nanos / 1_000_000, 3),
            Fraction::Auto if nanos.is_multiple_of(1000) => (nanos / 1000, 6),
            Fraction::Auto => (nanos, 9),
        };
        if width > 0 {
            s.push(b".");
            s.digits(value, width);
        }
        s.push(b"Z");
        s
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Only ASCII was written (digits and separators, or chrono's text).
        debug_assert!(self.buf[..self.len].is_ascii());
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or_default()
    }

    fn push(&mut self, bytes: &[u8]) {
        // chrono's longest stamp (a signed six-digit year, nine digits of
        // fraction) is 33 bytes.
        debug_assert!(self.len + bytes.len() <= self.buf.len());
        let end = (self.len + bytes.len()).min(self.buf.len());
        self.buf[self.len..end].copy_from_slice(&bytes[..end - self.len]);
        self.len = end;
    }

    /// `n` in exactly `width` decimal digits, zero-padded.
    fn digits(&mut self, mut n: u32, width: usize) {
        let mut out = [b'0'; 9];
        for at in (0..width).rev() {
            out[at] = b'0' + (n % 10) as u8;
            n /= 10;
        }
        self.push(&out[..width]);
    }
}

impl From<Fraction> for SecondsFormat {
    fn from(f: Fraction) -> Self {
        match f {
            Fraction::Micros => SecondsFormat::Micros,
            Fraction::Auto => SecondsFormat::AutoSi,
        }
    }
}

/// Serialize `t` as chrono's serde does (RFC 3339, `Z`, as many fraction
/// digits as needed), for `#[serde(serialize_with)]`.
///
/// # Errors
/// The serializer's.
pub fn serialize_auto<S: serde::Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(Stamp::new(t, Fraction::Auto).as_str())
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    /// Instants that cover every branch: no fraction, whole millis and
    /// micros, nanos, the ends of the years chrono writes plainly, and a
    /// spread of ordinary times.
    fn instants() -> Vec<DateTime<Utc>> {
        let mut v = vec![
            DateTime::UNIX_EPOCH,
            Utc.with_ymd_and_hms(2026, 12, 1, 19, 34, 11).unwrap(),
            Utc.with_ymd_and_hms(0, 1, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(9999, 12, 31, 23, 59, 59).unwrap(),
            Utc.with_ymd_and_hms(-1, 6, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(10000, 1, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(2024, 2, 29, 12, 0, 0).unwrap(),
        ];
        let base = v.clone();
        for t in base {
            for nanos in [
                1,
                999,
                1000,
                123_000,
                999_999,
                1_000_000,
                5_000_000,
                123_456_789,
                999_999_999,
            ] {
                v.push(t + chrono::Duration::nanoseconds(nanos));
            }
        }
        // A pseudo-random walk over 1970..2100, with odd nanoseconds.
        let mut x: i64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let secs = x.rem_euclid(4_102_444_800);
            let nanos = u32::try_from((x >> 20).rem_euclid(1_000_000_000)).unwrap();
            v.push(Utc.timestamp_opt(secs, nanos).unwrap());
        }
        v
    }

    #[test]
    fn stamps_are_what_chrono_writes() {
        for t in instants() {
            for f in [Fraction::Micros, Fraction::Auto] {
                let want = t.to_rfc3339_opts(f.into(), true);
                assert_eq!(Stamp::new(&t, f).as_str(), want, "{t:?} {f:?}");
            }
        }
    }

    #[test]
    fn serialized_stamps_are_what_chrono_serde_writes() {
        #[derive(serde::Serialize)]
        struct Ours(#[serde(serialize_with = "serialize_auto")] DateTime<Utc>);
        for t in instants() {
            let want = serde_json::to_string(&t).unwrap();
            assert_eq!(serde_json::to_string(&Ours(t)).unwrap(), want, "{t:?}");
        }
    }

    #[test]
    fn a_leap_second_is_written_as_chrono_writes_it() {
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .unwrap()
            .and_hms_nano_opt(23, 59, 59, 1_500_000_000)
            .unwrap()
            .and_utc();
        for f in [Fraction::Micros, Fraction::Auto] {
            assert_eq!(
                Stamp::new(&leap, f).as_str(),
                leap.to_rfc3339_opts(f.into(), true)
            );
        }
    }
}
