//! `k8s.io/apimachinery`'s `resource.Quantity`: parsing (`500m`, `1.5Gi`, `2e3`), exact comparison and
//! arithmetic, and the canonical form the API server prints (`1000m` is `1`, `1024Mi` is `1Gi`).

use std::cmp::Ordering;
use std::fmt;

/// A resource quantity: an exact decimal `mantissa × 10^exponent`, with the suffix style it was written in.
#[derive(Clone, Debug)]
pub struct Quantity {
    mantissa: i128,
    exponent: i32,
    binary: bool,
    /// Written with an exponent (`2e3`), which Go keeps when printing.
    exponent_form: bool,
}

/// The regular expression Kubernetes cites when a quantity does not parse.
pub const QUANTITY_ERROR: &str = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

impl Quantity {
    /// Parses a quantity: a signed decimal number and a binary (`Ki`…`Ei`), decimal (`n`, `u`, `m`,
    /// `k`, `M`…`E`) or exponent (`e3`) suffix.
    pub fn parse(text: &str) -> Result<Quantity, String> {
        let bad = || QUANTITY_ERROR.to_string();
        if text.is_empty() {
            return Err(bad());
        }
        let bytes = text.as_bytes();
        let mut i = 0;
        let negative = match bytes[0] {
            b'-' => {
                i = 1;
                true
            }
            b'+' => {
                i = 1;
                false
            }
            _ => false,
        };
        let number_start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let number = &text[number_start..i];
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return Err(bad());
        }
        let suffix = &text[i..];
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        let digits = format!("{whole}{fraction}");
        let digits = digits.trim_start_matches('0');
        let mut mantissa: i128 = if digits.is_empty() { 0 } else { digits.parse().map_err(|_| "quantity is too large".to_string())? };
        let mut exponent = -(fraction.len() as i32);
        let mut binary = false;
        let mut exponent_form = false;
        // Go's scanner takes suffix letters, then an optional sign and digits; anything else after
        // the number is a format error, and a suffix of the right shape it does not know a suffix error.
        let letters = suffix.trim_start_matches(|c: char| "eEinumkKMGTP".contains(c));
        let tail = letters.strip_prefix(['+', '-']).unwrap_or(letters);
        if !tail.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        match suffix {
            "" => {}
            "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => {
                let power = match suffix {
                    "Ki" => 10,
                    "Mi" => 20,
                    "Gi" => 30,
                    "Ti" => 40,
                    "Pi" => 50,
                    _ => 60,
                };
                mantissa = mantissa.checked_mul(1i128 << power).ok_or("quantity is too large")?;
                binary = true;
            }
            "n" => exponent -= 9,
            "u" => exponent -= 6,
            "m" => exponent -= 3,
            "k" => exponent += 3,
            "M" => exponent += 6,
            "G" => exponent += 9,
            "T" => exponent += 12,
            "P" => exponent += 15,
            "E" => exponent += 18,
            s if s.len() > 1 && s.starts_with(['e', 'E']) => {
                let e: i32 = s[1..].parse().map_err(|_| bad())?;
                if s[1..].is_empty() || !s[1..].trim_start_matches(['+', '-']).bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                exponent = exponent.checked_add(e).ok_or_else(bad)?;
                exponent_form = true;
            }
            _ => return Err("unable to parse quantity's suffix".to_string()),
        }
        if negative {
            mantissa = -mantissa;
        }
        let mut q = Quantity { mantissa, exponent, binary, exponent_form };
        q.normalize();
        Ok(q)
    }

    /// Drops trailing zeros of the mantissa into the exponent, and rounds below nano units up as
    /// the API server does.
    fn normalize(&mut self) {
        if self.mantissa == 0 {
            self.exponent = 0;
            return;
        }
        while self.mantissa % 10 == 0 {
            self.mantissa /= 10;
            self.exponent += 1;
        }
        while self.exponent < -9 {
            // Round away from zero to nano precision.
            let rem = self.mantissa % 10;
            self.mantissa /= 10;
            self.mantissa += rem.signum();
            self.exponent += 1;
        }
    }

    /// The sign: -1, 0 or 1.
    pub fn sign(&self) -> i64 {
        self.mantissa.signum() as i64
    }

    /// The value as an int64, when it is a whole number that fits.
    pub fn as_i64(&self) -> Option<i64> {
        if self.exponent < 0 {
            return None;
        }
        let mut v = self.mantissa;
        for _ in 0..self.exponent {
            v = v.checked_mul(10)?;
        }
        i64::try_from(v).ok()
    }

    /// The value as a float.
    pub fn as_f64(&self) -> f64 {
        self.mantissa as f64 * 10f64.powi(self.exponent)
    }

    /// `self + other × 10^0 × sign`.
    pub fn add(&self, other: &Quantity, subtract: bool) -> Result<Quantity, String> {
        let (a, b, e) = align(self, other).ok_or("quantity is too large")?;
        let b = if subtract { -b } else { b };
        let mut q = Quantity {
            mantissa: a.checked_add(b).ok_or("quantity is too large")?,
            exponent: e,
            binary: self.binary,
            exponent_form: self.exponent_form,
        };
        q.normalize();
        Ok(q)
    }

    /// A quantity for an integer.
    pub fn from_int(i: i64) -> Quantity {
        let mut q = Quantity { mantissa: i as i128, exponent: 0, binary: false, exponent_form: false };
        q.normalize();
        q
    }

    /// Compares values.
    pub fn cmp_value(&self, other: &Quantity) -> Ordering {
        match align(self, other) {
            Some((a, b, _)) => a.cmp(&b),
            None => self.as_f64().partial_cmp(&other.as_f64()).unwrap_or(Ordering::Equal),
        }
    }
}

/// Both mantissas at the smaller exponent.
fn align(a: &Quantity, b: &Quantity) -> Option<(i128, i128, i32)> {
    let e = a.exponent.min(b.exponent);
    let scale = |q: &Quantity| -> Option<i128> {
        let mut m = q.mantissa;
        for _ in 0..(q.exponent - e) {
            m = m.checked_mul(10)?;
        }
        Some(m)
    };
    Some((scale(a)?, scale(b)?, e))
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.exponent >= 0 {
            let mut s = self.mantissa.to_string();
            s.push_str(&"0".repeat(self.exponent as usize));
            f.write_str(&s)
        } else {
            // Milli, micro or nano units, as Kubernetes prints fractions.
            let (unit, shift) = if self.exponent >= -3 {
                ("m", 3)
            } else if self.exponent >= -6 {
                ("u", 6)
            } else {
                ("n", 9)
            };
            let m = self.mantissa * 10i128.pow((shift + self.exponent) as u32);
            write!(f, "{m}{unit}")
        }
    }
}

impl Quantity {
    /// The canonical form Go's `Quantity.String()` prints: decimal quantities with the SI suffix of
    /// the largest power of 1000 that keeps the number whole (`500m`, `2`, `1500k`), binary ones
    /// (written with `Ki`...`Ei`) with the largest power of 1024 that divides them, unless they lie
    /// between -1024 and 1024 or are not whole, which print in decimal.
    pub fn canonical(&self) -> String {
        if self.mantissa == 0 {
            return "0".into();
        }
        if self.binary {
            // Values strictly between -1024 and 1024, and values that are not whole, print in decimal.
            if let Some(mut value) = self.as_i128().filter(|v| v.abs() >= 1024) {
                let mut power = 0;
                while value % 1024 == 0 && power < 6 {
                    value /= 1024;
                    power += 1;
                }
                let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][power];
                return format!("{value}{suffix}");
            }
        }
        // Decimal: the exponent made a multiple of three (the mantissa grows to compensate).
        let (mut mantissa, mut exponent) = (self.mantissa, self.exponent);
        while exponent.rem_euclid(3) != 0 {
            mantissa *= 10;
            exponent -= 1;
        }
        if self.exponent_form {
            return if exponent == 0 { mantissa.to_string() } else { format!("{mantissa}e{exponent}") };
        }
        let suffix = match exponent {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            0 => "",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            18 => "E",
            _ => return format!("{mantissa}e{exponent}"),
        };
        format!("{mantissa}{suffix}")
    }

    /// The value as a whole number, when it is one that fits.
    fn as_i128(&self) -> Option<i128> {
        if self.exponent < 0 {
            return None;
        }
        let mut v = self.mantissa;
        for _ in 0..self.exponent {
            v = v.checked_mul(10)?;
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::Quantity;

    #[test]
    fn format_and_suffix_errors_are_go_s() {
        let error = |s: &str| Quantity::parse(s).unwrap_err();
        for bad in ["512MB", "1Gb", "2 cores", "", "1.2.3", "Mi"] {
            assert_eq!(error(bad), super::QUANTITY_ERROR, "{bad}");
        }
        for bad in ["1mi", "192i", "1ki", "1e"] {
            assert_eq!(error(bad), "unable to parse quantity's suffix", "{bad}");
        }
        assert!(Quantity::parse("1E+3").is_ok() && Quantity::parse("5e-3").is_ok());
    }

    #[test]
    fn canonical_forms_are_go_s() {
        let canonical = |s: &str| Quantity::parse(s).unwrap().canonical();
        for (written, shown) in [
            ("1000m", "1"),
            ("0.5", "500m"),
            ("2", "2"),
            ("2000", "2k"),
            ("1500", "1500"),
            ("1024Mi", "1Gi"),
            ("1.5Gi", "1536Mi"),
            ("512Ki", "512Ki"),
            ("1Ki", "1Ki"),
            ("100Mi", "100Mi"),
            ("0", "0"),
            ("1e3", "1e3"),
            ("1e4", "10e3"),
            ("0.5Ki", "512"),
            ("128974848", "128974848"),
            ("129e6", "129e6"),
            ("129M", "129M"),
            ("0.1", "100m"),
        ] {
            assert_eq!(canonical(written), shown, "{written}");
        }
    }
}
