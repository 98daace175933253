use super::*;
use crate::settings::Settings;
use crate::settings::policy::testing::{env, excludes, policy};

fn xml(body: &str) -> String {
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">{body}</plist>\n")
}

/// A folder of managed preferences, a managed folder, and the macOS environment reading
/// them as user `me`.
struct Mac {
    t: tempfile::TempDir,
}

impl Mac {
    fn new() -> Self {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("prefs/me")).unwrap();
        std::fs::create_dir_all(t.path().join("managed")).unwrap();
        Mac { t }
    }
    fn device(&self, text: &str) -> &Self {
        let p = self.t.path().join("prefs/com.anthropic.claudecode.plist");
        std::fs::write(p, text).unwrap();
        self
    }
    fn user(&self, text: &str) -> &Self {
        let p = self
            .t
            .path()
            .join("prefs/me/com.anthropic.claudecode.plist");
        std::fs::write(p, text).unwrap();
        self
    }
    fn file(&self, json: &str) -> &Self {
        let p = self.t.path().join("managed/managed-settings.json");
        std::fs::write(p, json).unwrap();
        self
    }
    fn settings(&self, platform: &str) -> Settings {
        let prefs = self.t.path().join("prefs");
        let managed = self.t.path().join("managed");
        let vars = [
            ("CCMEM_MANAGED_PREFERENCES", prefs.to_str().unwrap()),
            ("CCMEM_MANAGED_DIR", managed.to_str().unwrap()),
            ("USER", "me"),
        ];
        Settings::load(&env(platform, &vars))
    }
}

const PLIST_MD: &str = "<dict><key>claudeMd</key><string>plist</string>\
    <key>claudeMdExcludes</key><array><string>a</string></array></dict>";

#[test]
fn a_plist_with_settings_replaces_the_files_settings() {
    let m = Mac::new();
    m.device(&xml(PLIST_MD))
        .file(r#"{"claudeMd": "file", "claudeMdExcludes": ["b"], "autoMemoryEnabled": false}"#);
    let s = m.settings("macos");
    assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"plist\""));
    assert_eq!(excludes(&s), ["a"]);
    assert_eq!(policy(&s, "/autoMemoryEnabled"), None);
    assert_eq!(s.read_policy.len(), 1);
    assert!(
        s.read_policy[0].note.contains("the policy;"),
        "{:?}",
        s.read_policy
    );
    // The Linux model reads no plist: the file is the policy.
    let linux = m.settings("linux");
    assert_eq!(policy(&linux, "/claudeMd").as_deref(), Some("\"file\""));
    assert!(linux.read_policy.is_empty());
}

#[test]
fn merge_in_the_plist_lays_it_over_the_file() {
    let m = Mac::new();
    m.device(&xml(
        "<dict><key>managedSourcesBehavior</key><string>merge</string>\
         <key>claudeMdExcludes</key><array><string>a</string></array></dict>",
    ))
    .file(r#"{"claudeMd": "file", "claudeMdExcludes": ["b"]}"#);
    let s = m.settings("macos");
    assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"file\""));
    let mut got = excludes(&s);
    got.sort();
    assert_eq!(got, ["a", "b"]);
    // A scalar of the plist wins over the file's.
    m.device(&xml(
        "<dict><key>managedSourcesBehavior</key><string>merge</string>\
         <key>claudeMd</key><string>plist</string></dict>",
    ));
    assert_eq!(
        policy(&m.settings("macos"), "/claudeMd").as_deref(),
        Some("\"plist\"")
    );
}

#[test]
fn merge_asked_only_by_the_file_is_not_a_merge() {
    let m = Mac::new();
    m.device(&xml(PLIST_MD))
        .file(r#"{"claudeMdExcludes": ["b"], "managedSourcesBehavior": "merge"}"#);
    assert_eq!(excludes(&m.settings("macos")), ["a"]);
}

#[test]
fn a_plist_without_policy_content_leaves_the_file_in_charge() {
    for body in [
        "<dict/>",
        "<dict><key>managedSourcesBehavior</key><string>merge</string></dict>",
        "<dict><key>permissions</key><dict><key>x</key><dict/></dict></dict>",
    ] {
        let m = Mac::new();
        m.device(&xml(body)).file(r#"{"claudeMd": "file"}"#);
        let s = m.settings("macos");
        assert_eq!(
            policy(&s, "/claudeMd").as_deref(),
            Some("\"file\""),
            "{body}"
        );
        assert!(s.read_policy[0].note.contains("holds no policy settings"));
    }
}

#[test]
fn the_per_user_plist_comes_first_and_ends_the_list() {
    let m = Mac::new();
    m.user(&xml(
        "<dict><key>claudeMd</key><string>user</string></dict>",
    ))
    .device(&xml(PLIST_MD));
    let s = m.settings("macos");
    assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"user\""));
    assert!(excludes(&s).is_empty());
    assert_eq!(s.read_policy.len(), 2);
    assert_eq!(
        s.read_policy[1].note,
        "not read: the client stops at the per-user managed preferences before it"
    );
}

#[test]
fn an_unconvertible_plist_is_passed_over_and_a_malformed_one_stops_the_client() {
    let m = Mac::new();
    // A date: plutil cannot make JSON of it; the device plist is read next.
    m.user(&xml("<dict><key>claudeMd</key><string>user</string>\
         <key>d</key><date>2026-01-01T00:00:00Z</date></dict>"))
        .device(&xml(PLIST_MD));
    let s = m.settings("macos");
    assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"plist\""));
    assert!(s.problems[0].message.contains("a date or data value"));
    // Not a plist: the client refuses to start, and the device plist is not read.
    m.user("<plist><dict><key>claudeMd</key>\n");
    let s = m.settings("macos");
    assert_eq!(policy(&s, "/claudeMd"), None);
    assert_eq!(s.problems.len(), 1);
    assert!(s.problems[0].message.contains("refuses to start"));
    assert!(
        s.problems[0]
            .origin
            .ends_with("me/com.anthropic.claudecode.plist")
    );
    // A top-level array converts, to JSON that is not an object.
    m.user(&xml("<array><string>x</string></array>"));
    let s = m.settings("macos");
    assert!(s.problems[0].message.contains("not a JSON object"));
}

#[test]
fn a_wrong_typed_key_is_dropped_alone() {
    let m = Mac::new();
    m.device(&xml("<dict><key>claudeMd</key><string>plist</string>\
         <key>claudeMdExcludes</key><string>a</string></dict>"));
    let s = m.settings("macos");
    assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"plist\""));
    assert!(excludes(&s).is_empty());
    assert!(s.problems[0].message.contains("drops this key"));
}

#[test]
fn binary_and_ascii_plists_convert_as_xml_does() {
    let mut dict = plist::Dictionary::new();
    dict.insert("claudeMd".into(), plist::Value::from("bin"));
    dict.insert("n".into(), plist::Value::from(1.5));
    dict.insert("i".into(), plist::Value::from(-3));
    dict.insert("b".into(), plist::Value::from(true));
    let mut bin = Vec::new();
    plist::Value::Dictionary(dict)
        .to_writer_binary(&mut bin)
        .unwrap();
    assert_eq!(
        to_json(&bin).unwrap(),
        r#"{"claudeMd":"bin","n":1.5,"i":-3,"b":true}"#
    );
    assert_eq!(
        to_json(br#"{ claudeMd = "ascii"; a = ( "x", "y" ); }"#).unwrap(),
        r#"{"claudeMd":"ascii","a":["x","y"]}"#
    );
    assert_eq!(
        to_json(xml("<dict><key>a\"\n</key><array/></dict>").as_bytes()).unwrap(),
        r#"{"a\"\n":[]}"#
    );
    assert!(matches!(to_json(b""), Err(Convert::Invalid(_))));
    assert!(matches!(to_json(b"not a plist"), Err(Convert::Invalid(_))));
}

#[test]
fn deep_and_large_plists_are_bounded() {
    let depth = 200_000;
    let deep = xml(&format!(
        "{}{}",
        "<array>".repeat(depth),
        "</array>".repeat(depth)
    ));
    // Converted without recursion; the JSON parser then takes it as any depth.
    assert_eq!(to_json(deep.as_bytes()).unwrap().len(), 2 * depth);
    let big = xml(&format!(
        "<array>{}</array>",
        "<string>xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx</string>"
            .repeat(40_000)
    ));
    assert_eq!(to_json(big.as_bytes()), Err(Convert::Oversize));
}

/// A binary plist of forty arrays, each of eight references to the next: 8^40 events in
/// 400 bytes (the receipt and the session-start hook never ended).
#[test]
fn a_binary_plist_of_shared_references_is_oversize_at_once() {
    let (depth, k) = (40u8, 8u8);
    let mut out = b"bplist00".to_vec();
    let mut offsets: Vec<u16> = Vec::new();
    offsets.push(out.len() as u16);
    out.extend([0xD1, 1, 2]); // { key 1: value 2 }
    offsets.push(out.len() as u16);
    out.extend(b"\x53env");
    for i in 0..depth {
        offsets.push(out.len() as u16);
        out.push(0xA0 | k);
        out.extend(std::iter::repeat_n(3 + i, usize::from(k)));
    }
    offsets.push(out.len() as u16);
    out.extend([0x10, 0]);
    let table = out.len() as u64;
    for o in &offsets {
        out.extend(o.to_be_bytes());
    }
    out.extend([0, 0, 0, 0, 0, 0, 2, 1]);
    out.extend((offsets.len() as u64).to_be_bytes());
    out.extend(0u64.to_be_bytes());
    out.extend(table.to_be_bytes());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(to_json(&out)));
    let got = rx.recv_timeout(std::time::Duration::from_secs(60));
    assert_eq!(got, Ok(Err(Convert::Oversize)));
}

#[test]
fn user_names_the_client_skips() {
    for user in ["", ".", "..", "a/b", "a\u{1}", "a\u{7f}"] {
        let got = plists_in("/M", Some(user));
        assert_eq!(got.len(), 1, "{user:?}");
        assert_eq!(got[0].0, "/M/com.anthropic.claudecode.plist");
    }
    // Bun's os.userInfo() names an unset USER `unknown`.
    assert_eq!(
        plists_in("/M", None)[0].0,
        "/M/unknown/com.anthropic.claudecode.plist"
    );
    assert_eq!(
        plists(&env("macos", &[("USER", "me")]))[0].0,
        "/Library/Managed Preferences/me/com.anthropic.claudecode.plist"
    );
}
