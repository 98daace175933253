//! Isolation of the client's run: what is removed from its environment, and the `--settings`
//! layer that neutralizes credentials set in settings files.
//!
//! - every credential, provider switch, proxy and telemetry-export variable is removed from the
//!   environment ([`is_credential_var`]); a dummy `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL` set to
//!   the stub, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`, `DISABLE_AUTOUPDATER=1`,
//!   `DISABLE_TELEMETRY=1`, `DISABLE_ERROR_REPORTING=1` and a loopback `NO_PROXY` are added;
//! - the `--settings` layer (the user's own `--settings`, if any, plus overrides) sets
//!   `apiKeyHelper` to `""` (an empty helper is never run: checked against 2.1.332), turns hooks
//!   off, and re-sets in its `env` every credential variable any settings file's `env` names —
//!   flag settings win over user, project and local settings, so a `settings.json` that exports
//!   `ANTHROPIC_BASE_URL` or a real key cannot send the request elsewhere.
//!
//! Managed policy outranks flag settings, so a policy `apiKeyHelper` cannot be overridden:
//! [`policy_blocker`] makes the run refuse instead.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::settings::{Settings, Source};

/// The dummy key the client sends to the stub.
pub const DUMMY_KEY: &str = "sk-ant-ccmem-verify-dummy";

/// True for variables that carry credentials, pick a provider or proxy, or export telemetry.
pub fn is_credential_var(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    const PREFIXES: [&str; 7] = [
        "ANTHROPIC_",
        "CLAUDE_CODE_OAUTH",
        "CLAUDE_CODE_USE_",
        "CLAUDE_CODE_API_KEY",
        "AWS_",
        "OTEL_",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ];
    PREFIXES.iter().any(|p| n.starts_with(p))
        || (n.ends_with("_PROXY") && n != "NO_PROXY")
        || n == "CLAUDE_CODE_SESSION_ACCESS_TOKEN"
}

/// The client's environment: `vars` without credentials, plus the stub and the switches that
/// keep the client off the network.
pub fn isolated_env(vars: &BTreeMap<String, String>, base_url: &str) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = vars
        .iter()
        .filter(|(k, _)| !is_credential_var(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, v) in [
        ("ANTHROPIC_API_KEY", DUMMY_KEY),
        ("ANTHROPIC_BASE_URL", base_url),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ("DISABLE_AUTOUPDATER", "1"),
        ("DISABLE_TELEMETRY", "1"),
        ("DISABLE_ERROR_REPORTING", "1"),
        ("NO_PROXY", "127.0.0.1,localhost,::1"),
        ("no_proxy", "127.0.0.1,localhost,::1"),
    ] {
        env.insert(k.to_owned(), v.to_owned());
    }
    env
}

/// Credential and routing variables blanked in the `--settings` env even when no settings file
/// read here names them (a settings file ccmem does not model could still set them).
pub const ALWAYS_BLANK: [&str; 11] = [
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_CUSTOM_HEADERS",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_USE_FOUNDRY",
    "AWS_BEARER_TOKEN_BEDROCK",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "https_proxy",
    "http_proxy",
];

/// The `--settings` layer passed to the client: the user's own flag settings (if any) with
/// `apiKeyHelper` emptied, hooks off, and every credential variable named in any layer's `env`
/// re-set (to `""`, or to the stub's values for the key and base URL).
pub fn settings_override(settings: &Settings, base_url: &str) -> Value {
    let mut out = match settings.layer(Source::Flag).map(|l| &l.value) {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    let mut env = match out.get("env") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    for k in ALWAYS_BLANK {
        env.insert(k.to_owned(), json!(""));
    }
    for layer in &settings.layers {
        if let Some(Value::Object(m)) = layer.value.get("env") {
            for k in m.keys().filter(|k| is_credential_var(k)) {
                env.insert(k.clone(), json!(""));
            }
        }
    }
    env.insert("ANTHROPIC_API_KEY".into(), json!(DUMMY_KEY));
    env.insert("ANTHROPIC_BASE_URL".into(), json!(base_url));
    out.insert("env".into(), Value::Object(env));
    out.insert("apiKeyHelper".into(), json!(""));
    out.insert("disableAllHooks".into(), json!(true));
    Value::Object(out)
}

/// Why the run must not start: managed policy sets an `apiKeyHelper` (flag settings cannot
/// override policy, so the helper would run).
pub fn policy_blocker(settings: &Settings) -> Option<String> {
    // Any policy file (managed-settings.json or a drop-in) that sets one: the merge keeps a
    // helper unless a later file replaces it with another.
    let layer = settings.layers.iter().find(|l| {
        l.source == Source::Policy
            && l.value
                .get("apiKeyHelper")
                .and_then(Value::as_str)
                .is_some_and(|h| !h.is_empty())
    })?;
    Some(format!(
        "{} sets apiKeyHelper, which --settings cannot override; verify will not run it",
        layer.origin
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_vars() {
        for k in [
            "ANTHROPIC_API_KEY",
            "anthropic_auth_token",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "CLAUDE_CODE_USE_BEDROCK",
            "HTTPS_PROXY",
            "https_proxy",
            "AWS_SECRET_ACCESS_KEY",
            "OTEL_EXPORTER_OTLP_HEADERS",
            "CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR",
        ] {
            assert!(is_credential_var(k), "{k}");
        }
        for k in [
            "CLAUDE_CONFIG_DIR",
            "CLAUDE_CODE_DISABLE_CLAUDE_MDS",
            "HOME",
            "PATH",
            "NO_PROXY",
        ] {
            assert!(!is_credential_var(k), "{k}");
        }
    }

    #[test]
    fn isolated_env_replaces_credentials() {
        let vars: BTreeMap<String, String> = [
            ("ANTHROPIC_API_KEY", "sk-real"),
            ("CLAUDE_CODE_OAUTH_TOKEN", "oat"),
            ("HOME", "/h"),
            ("CLAUDE_CONFIG_DIR", "/c"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let env = isolated_env(&vars, "http://127.0.0.1:9");
        assert_eq!(env["ANTHROPIC_API_KEY"], DUMMY_KEY);
        assert_eq!(env["ANTHROPIC_BASE_URL"], "http://127.0.0.1:9");
        assert!(!env.contains_key("CLAUDE_CODE_OAUTH_TOKEN"));
        assert_eq!(env["CLAUDE_CONFIG_DIR"], "/c");
        assert_eq!(env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"], "1");
        assert!(!env.values().any(|v| v.contains("sk-real")));
    }

    #[test]
    fn override_keeps_user_flag_settings_and_blanks_env_credentials() {
        let mut s = Settings::default();
        for (source, v) in [
            (
                Source::User,
                json!({"env": {"ANTHROPIC_AUTH_TOKEN": "t", "FOO": "1"}, "apiKeyHelper": "x"}),
            ),
            (
                Source::Flag,
                json!({"claudeMdExcludes": ["a"], "env": {"BAR": "2"}}),
            ),
        ] {
            s.layers.push(crate::settings::Layer {
                source,
                origin: "o".into(),
                value: v,
            });
        }
        let o = settings_override(&s, "http://127.0.0.1:1");
        assert_eq!(o["claudeMdExcludes"], json!(["a"]));
        assert_eq!(o["apiKeyHelper"], json!(""));
        assert_eq!(o["env"]["ANTHROPIC_AUTH_TOKEN"], json!(""));
        assert_eq!(o["env"]["BAR"], json!("2"));
        assert_eq!(o["env"]["CLAUDE_CODE_USE_BEDROCK"], json!(""));
        assert!(o["env"].get("FOO").is_none());
        assert_eq!(o["env"]["ANTHROPIC_BASE_URL"], json!("http://127.0.0.1:1"));
        assert!(policy_blocker(&s).is_none());
        s.layers.push(crate::settings::Layer {
            source: Source::Policy,
            origin: "/etc/claude-code/managed-settings.json".into(),
            value: json!({"apiKeyHelper": "get-key"}),
        });
        assert!(
            policy_blocker(&s)
                .unwrap()
                .contains("managed-settings.json")
        );
    }
}
