//! Extras as JSON, whatever a tool made of ours (Blender: the text of a Python literal).

/// A node's or scene's extras as JSON, with what Blender made of ours undone: Blender keeps
/// extras as custom properties, and a value it cannot hold as one (a dictionary with an integer
/// beyond 32 bits, such as a zone mask with bit 31 or a CRC) it keeps as the text of its Python
/// `repr`, which its exporter then writes as a JSON string. Such a string (one that starts with
/// `{` or `[`) at the top level is read back as the value it spells.
pub fn extras_json(extras: &gltf::json::Extras) -> Option<serde_json::Value> {
    let value: serde_json::Value = serde_json::from_str(extras.as_ref()?.get()).ok()?;
    Some(spelled_out(value))
}

/// Extras with every top-level string that spells a Python dictionary or list (what Blender keeps
/// of a value a custom property cannot hold) read back as that value.
pub fn spelled_out(mut value: serde_json::Value) -> serde_json::Value {
    if let Some(object) = value.as_object_mut() {
        for v in object.values_mut() {
            let spelled = v
                .as_str()
                .filter(|s| s.starts_with('{') || s.starts_with('['))
                .and_then(python_literal);
            if let Some(parsed) = spelled {
                *v = parsed;
            }
        }
    }
    value
}

/// A number however a tool wrote it: a JSON number, or a string of one (what Blender keeps of
/// an integer beyond 32 bits).
pub fn number(value: &serde_json::Value) -> Option<f64> {
    match value {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        serde_json::Value::Bool(b) => Some(*b as u8 as f64),
        _ => None,
    }
}

/// A whole number of type `T` however a tool wrote it (a number, or a string of one), None for
/// anything else: a fraction, NaN, a number `T` cannot hold.
pub fn integer_in<T: TryFrom<i64>>(value: &serde_json::Value) -> Option<T> {
    let v = number(value).filter(|v| v.fract() == 0.0 && v.abs() < 2f64.powi(63))?;
    T::try_from(v as i64).ok()
}

/// Parses a Python literal as `repr` writes it (dicts, lists, tuples, strings, integers,
/// floats, `True`, `False`, `None`) into JSON. None for anything else.
pub fn python_literal(text: &str) -> Option<serde_json::Value> {
    let mut p = PyParser {
        s: text.as_bytes(),
        at: 0,
        text,
    };
    let value = p.value(0)?;
    p.space();
    (p.at == p.s.len()).then_some(value)
}

pub(super) struct PyParser<'a> {
    s: &'a [u8],
    at: usize,
    text: &'a str,
}

impl PyParser<'_> {
    fn space(&mut self) {
        while self.s.get(self.at).is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.space();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// Items up to `close`, separated by commas (a trailing comma allowed).
    fn items(
        &mut self,
        close: u8,
        depth: usize,
        mut item: impl FnMut(&mut Self, usize) -> Option<()>,
    ) -> Option<()> {
        if self.eat(close) {
            return Some(());
        }
        loop {
            item(self, depth + 1)?;
            if self.eat(close) {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
            if self.eat(close) {
                return Some(());
            }
        }
    }

    fn value(&mut self, depth: usize) -> Option<serde_json::Value> {
        use serde_json::Value;
        if depth > 64 {
            return None;
        }
        self.space();
        let c = *self.s.get(self.at)?;
        match c {
            b'{' => {
                self.at += 1;
                let mut map = serde_json::Map::new();
                self.items(b'}', depth, |p, d| {
                    let key = match p.value(d)? {
                        Value::String(s) => s,
                        Value::Number(n) => n.to_string(),
                        _ => return None,
                    };
                    if !p.eat(b':') {
                        return None;
                    }
                    let v = p.value(d)?;
                    map.insert(key, v);
                    Some(())
                })?;
                Some(Value::Object(map))
            }
            b'[' | b'(' => {
                self.at += 1;
                let close = if c == b'[' { b']' } else { b')' };
                let mut list = Vec::new();
                self.items(close, depth, |p, d| {
                    list.push(p.value(d)?);
                    Some(())
                })?;
                Some(Value::Array(list))
            }
            b'\'' | b'"' => self.string(c).map(Value::String),
            _ => {
                let start = self.at;
                while self.s.get(self.at).is_some_and(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'+' | b'_')
                }) {
                    self.at += 1;
                }
                let word = &self.text[start..self.at];
                match word {
                    "True" => Some(Value::Bool(true)),
                    "False" => Some(Value::Bool(false)),
                    "None" => Some(Value::Null),
                    _ => {
                        let word = word.replace('_', "");
                        if let Ok(i) = word.parse::<i64>() {
                            Some(Value::from(i))
                        } else if let Ok(u) = word.parse::<u64>() {
                            Some(Value::from(u))
                        } else {
                            let f: f64 = word.parse().ok()?;
                            f.is_finite().then(|| Value::from(f))
                        }
                    }
                }
            }
        }
    }

    fn string(&mut self, quote: u8) -> Option<String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let mut chars = rest.chars();
            let c = chars.next()?;
            self.at += c.len_utf8();
            match c {
                c if c as u32 == quote as u32 => return Some(out),
                '\\' => {
                    let e = self.text[self.at..].chars().next()?;
                    self.at += e.len_utf8();
                    let hex = |p: &mut Self, n: usize| -> Option<char> {
                        let digits = p.text.get(p.at..p.at + n)?;
                        p.at += n;
                        char::from_u32(u32::from_str_radix(digits, 16).ok()?)
                    };
                    out.push(match e {
                        'n' => '\n',
                        'r' => '\r',
                        't' => '\t',
                        '0' => '\0',
                        'x' => hex(self, 2)?,
                        'u' => hex(self, 4)?,
                        'U' => hex(self, 8)?,
                        other => other,
                    });
                }
                c => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_literals_become_json() {
        let text = r#"{'format': 1, 'name': "it's", 'esc': 'a\'b\\c\x41\u00e9', 'big': 4294965821, 'neg': -11264, 'f': 0.5, 'e': 1e-05, 'flags': [True, False, None], 'tuple': (1, 2,), 'nested': {'mask': 2147483648}, 'ü': 'ä'}"#;
        assert_eq!(
            python_literal(text).unwrap(),
            json!({
                "format": 1, "name": "it's", "esc": "a'b\\cAé", "big": 4294965821u64, "neg": -11264,
                "f": 0.5, "e": 1e-5, "flags": [true, false, null], "tuple": [1, 2],
                "nested": {"mask": 2147483648u64}, "ü": "ä"
            })
        );
        for bad in [
            "{'a': 1",
            "{'a' 1}",
            "[1, 2] x",
            "{'a': inf}",
            "'open",
            "{1: }",
            "[,]",
        ] {
            assert_eq!(python_literal(bad), None, "{bad}");
        }
        assert_eq!(python_literal("[]"), Some(json!([])));
        assert_eq!(python_literal(" { } "), Some(json!({})));
    }

    #[test]
    fn numbers_may_be_strings() {
        assert_eq!(number(&json!(3)), Some(3.0));
        assert_eq!(number(&json!("4294967295")), Some(4294967295.0));
        assert_eq!(number(&json!("x")), None);
        assert_eq!(number(&json!(null)), None);
    }
}
