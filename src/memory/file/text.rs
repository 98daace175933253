//! [`Text`]: a file's text, checked UTF-8 once and shared without copying.

use bytes::Bytes;

/// A file's whole text: valid UTF-8, immutable, cheap to clone. A text read from disk is a
/// span of a buffer that other files read on the same thread share (`crate::fsread`); one made
/// in memory (a plan, a test) owns its bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Text(Bytes);

impl Text {
    /// `bytes` as text, or the offset of the first byte that is not valid UTF-8. simdutf8
    /// validates several times faster than std (the check runs over every byte of the
    /// library); std finds where a bad file goes wrong.
    pub fn new(bytes: Bytes) -> Result<Text, usize> {
        if simdutf8::basic::from_utf8(&bytes).is_ok() {
            return Ok(Text(bytes));
        }
        Err(std::str::from_utf8(&bytes).map_or_else(|e| e.valid_up_to(), str::len))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // SAFETY: `new` checked that the bytes are valid UTF-8, and `Bytes` never changes them.
        unsafe { std::str::from_utf8_unchecked(&self.0) }
    }
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Bytes::from(s.into_bytes()))
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_utf8_is_text_and_the_first_bad_byte_is_named() {
        let t = Text::new(Bytes::from_static("héllo".as_bytes())).unwrap();
        assert_eq!((&*t, format!("{t:?}")), ("héllo", "\"héllo\"".to_owned()));
        assert_eq!(Text::new(Bytes::from_static(b"ab\xffcd")), Err(2));
        // A truncated sequence at the end is bad from where it starts.
        assert_eq!(Text::new(Bytes::from_static(b"abc\xc3")), Err(3));
        assert_eq!(&*Text::from("x".to_owned()), "x");
    }
}
