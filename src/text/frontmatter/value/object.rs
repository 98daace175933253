//! A JavaScript object's own properties, in the engine's key order (`OrdinaryOwnPropertyKeys`):
//! array-index keys first, ascending, then the others in the order they were first set.

use std::collections::BTreeMap;

use hashbrown::HashTable;

use super::Value;

/// An object's own properties, in the engine's key order (see the module docs).
///
/// Array-index keys are kept apart, in their order, and the others in the order they were first
/// set, with an index by key once there are more than a few: setting or reading a key costs the
/// same however many keys a hostile block holds, and however they are ordered.
#[derive(Clone, Default)]
pub struct Object {
    indexed: BTreeMap<u32, (String, Value)>,
    named: Vec<(String, Value)>,
    /// `named`'s places, by the hash of their key, built when it passes [`INDEX_FROM`] keys
    /// (the keys themselves are not copied: a mapping merged into a thousand others is a
    /// million properties, as in the client).
    places: Option<HashTable<u32>>,
}

impl std::fmt::Debug for Object {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The hash of a key in an object's index (fixed: the index is never iterated, so its order
/// shows nowhere).
fn key_hash(key: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x00cc_3e3a_0d1f_5eed).hash_one(key)
}

/// Keys from which an object looks its named keys up by hash rather than one by one.
const INDEX_FROM: usize = 16;

impl PartialEq for Object {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Object {
    /// An empty object.
    pub fn new() -> Self {
        Self::default()
    }

    /// `obj[key] = value`: replaces in place, or adds the key where the engine puts it.
    pub fn set(&mut self, key: String, value: Value) {
        if let Some(i) = array_index(&key) {
            self.indexed.insert(i, (key, value));
            return;
        }
        if let Some(at) = self.place(&key) {
            self.named[at].1 = value;
            return;
        }
        let named = &self.named;
        let rehash = |&at: &u32| key_hash(&named[at as usize].0);
        if let Some(places) = &mut self.places {
            places.insert_unique(key_hash(&key), named.len() as u32, rehash);
        } else if named.len() >= INDEX_FROM {
            let mut places = HashTable::with_capacity(named.len() * 2);
            for at in 0..=named.len() as u32 {
                let k = named.get(at as usize).map_or(key.as_str(), |(k, _)| k);
                places.insert_unique(key_hash(k), at, rehash);
            }
            self.places = Some(places);
        }
        self.named.push((key, value));
    }

    fn place(&self, key: &str) -> Option<usize> {
        match &self.places {
            Some(places) => places
                .find(key_hash(key), |&at| self.named[at as usize].0 == key)
                .map(|&at| at as usize),
            None => self.named.iter().position(|(k, _)| k == key),
        }
    }

    /// The value of `key`, if the object has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match array_index(key) {
            Some(i) => self.indexed.get(&i).map(|(_, v)| v),
            None => self.place(key).map(|at| &self.named[at].1),
        }
    }

    /// Whether the object has `key`.
    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The properties in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &Value)> {
        fn pair((k, v): &(String, Value)) -> (&str, &Value) {
            (k.as_str(), v)
        }
        (self.indexed.values().map(pair)).chain(self.named.iter().map(pair))
    }

    /// The number of properties.
    pub fn len(&self) -> usize {
        self.indexed.len() + self.named.len()
    }

    /// Whether the object has no property.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl FromIterator<(String, Value)> for Object {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        let mut o = Object::new();
        for (k, v) in iter {
            o.set(k, v);
        }
        o
    }
}

/// The index of an array-index key: the canonical decimal form of an integer below 2³² − 1.
fn array_index(key: &str) -> Option<u32> {
    if key.is_empty() || key.len() > 10 || (key.len() > 1 && key.starts_with('0')) {
        return None;
    }
    if !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u64>()
        .ok()
        .filter(|&n| n < u64::from(u32::MAX))
        .map(|n| n as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_index_keys_come_first_in_ascending_order() {
        let o: Object = ["b", "10", "a", "2", "4294967295", "4294967294", "01", "-1"]
            .into_iter()
            .map(|k| (k.to_owned(), Value::Null))
            .collect();
        let keys: Vec<&str> = o.iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            ["2", "10", "4294967294", "b", "a", "4294967295", "01", "-1"]
        );
    }

    #[test]
    fn setting_a_key_again_keeps_its_place() {
        let mut o = Object::new();
        o.set("a".into(), Value::Number(1.0));
        o.set("b".into(), Value::Number(2.0));
        o.set("a".into(), Value::Number(3.0));
        let got: Vec<(&str, &Value)> = o.iter().collect();
        assert_eq!(
            got,
            [("a", &Value::Number(3.0)), ("b", &Value::Number(2.0))]
        );
    }

    #[test]
    fn many_keys_in_any_order_stay_in_the_engine_order() {
        let mut o = Object::new();
        for n in (0..50_000u32).rev() {
            o.set(n.to_string(), Value::Null);
            o.set(format!("k{n}"), Value::Number(f64::from(n)));
        }
        o.set("k7".into(), Value::Bool(true));
        assert_eq!(o.len(), 100_000);
        let keys: Vec<&str> = o.iter().map(|(k, _)| k).take(3).collect();
        assert_eq!(keys, ["0", "1", "2"]);
        let named: Vec<&str> = o.iter().map(|(k, _)| k).skip(50_000).take(2).collect();
        assert_eq!(named, ["k49999", "k49998"]);
        assert_eq!(o.get("k7"), Some(&Value::Bool(true)));
        assert_eq!(o.get("49999"), Some(&Value::Null));
    }
}
