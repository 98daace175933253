//! The project folder name under `<config>/projects/` (`J$`, chunk-fn7g10bh): every UTF-16 code
//! unit that is not an ASCII letter or digit becomes `-`; past 200 units the name is cut and
//! `-` + base-36 of `|hashCode|` (Java `String.hashCode` over the original UTF-16 units) appended.

use crate::constants::SLUG_MAX_UTF16;

/// The client's `J$(path)`.
pub fn slug(path: &str) -> String {
    let units: Vec<u16> = path.encode_utf16().collect();
    let s: String = units
        .iter()
        .map(|&u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() => char::from(b),
            _ => '-',
        })
        .collect();
    if s.len() <= SLUG_MAX_UTF16 {
        return s;
    }
    format!(
        "{}-{}",
        &s[..SLUG_MAX_UTF16],
        base36(java_hash(&units).unsigned_abs())
    )
}

/// Java's `String.hashCode` (`h = 31·h + unit`, wrapping at 32 bits).
pub fn java_hash(units: &[u16]) -> i32 {
    units
        .iter()
        .fold(0i32, |h, &u| h.wrapping_mul(31).wrapping_add(i32::from(u)))
}

/// `n.toString(36)`.
fn base36(mut n: u32) -> String {
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(digits[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// `CLAUDE_CODE_PROJECT_DIR_NAME` is usable: `/^[A-Za-z0-9_-]{1,64}$/` and not a reserved
/// device name (`con`, `prn`, `aux`, `nul`, `com0-9`, `lpt0-9`, any case).
pub fn valid_project_dir_name(name: &str) -> bool {
    let shape = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    let lower = name.to_ascii_lowercase();
    let reserved = matches!(lower.as_str(), "con" | "prn" | "aux" | "nul")
        || (lower.len() == 4
            && (lower.starts_with("com") || lower.starts_with("lpt"))
            && lower.as_bytes()[3].is_ascii_digit());
    shape && !reserved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_examples_from_the_spec() {
        assert_eq!(slug("/tmp/short path/ü"), "-tmp-short-path--");
        let long = format!("/home/user/{}/proj", "a".repeat(200));
        assert_eq!(
            slug(&long),
            format!("-home-user-{}-3w8i3b", "a".repeat(189))
        );
    }

    #[test]
    fn per_utf16_unit_and_no_nfc() {
        assert_eq!(slug("/a/😀"), "-a---");
        assert_eq!(slug("/cafe\u{301}"), "-cafe-");
        assert_eq!(slug("/x_y.z w/Q"), "-x-y-z-w-Q");
    }

    #[test]
    fn exactly_200_units_is_not_hashed() {
        let p = "a".repeat(200);
        assert_eq!(slug(&p), p);
        assert!(slug(&"a".repeat(201)).starts_with(&format!("{}-", "a".repeat(200))));
    }

    #[test]
    fn java_hash_matches_known_values() {
        let units: Vec<u16> = "hello".encode_utf16().collect();
        assert_eq!(java_hash(&units), 99_162_322);
        let units: Vec<u16> = "polygenelubricants".encode_utf16().collect();
        assert_eq!(java_hash(&units), i32::MIN);
        assert_eq!(base36(i32::MIN.unsigned_abs()), "zik0zk");
    }

    #[test]
    fn project_dir_name_rule() {
        assert!(valid_project_dir_name("my-proj_1"));
        assert!(!valid_project_dir_name("my.proj"));
        assert!(!valid_project_dir_name(&"a".repeat(65)));
        assert!(!valid_project_dir_name(""));
        assert!(!valid_project_dir_name("COM1"));
        assert!(valid_project_dir_name("com10"));
    }
}
