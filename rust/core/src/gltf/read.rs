//! Reading any valid glTF 2.0 back: the document, its buffers, node world transforms and the
//! triangles of a mesh with every attribute as floats, whatever component type a tool chose.

use std::collections::HashMap;
use std::path::Path;

use glam::{Mat4, Vec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};

/// A glTF document with its buffers loaded.
pub struct Document {
    pub document: gltf::Document,
    pub buffers: Vec<gltf::buffer::Data>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ReadError(pub String);

impl Document {
    /// Reads a `.glb` or `.gltf`; `dir` is where a `.gltf`'s external buffers are looked for.
    pub fn from_slice(bytes: &[u8], dir: Option<&Path>) -> Result<Document, ReadError> {
        let gltf = match gltf::Gltf::from_slice(bytes) {
            Ok(gltf) => gltf,
            // Valid files the `gltf` crate refuses get a second, tolerant reading.
            Err(e) => tolerant(bytes)
                .ok_or_else(|| ReadError(format!("not a valid glTF 2.0 file: {e}")))?,
        };
        let buffers = gltf::import_buffers(&gltf.document, dir, gltf.blob)
            .map_err(|e| ReadError(format!("the glTF's buffers cannot be read: {e}")))?;
        Ok(Document {
            document: gltf.document,
            buffers,
        })
    }

    /// Every node of every scene with its world transform, parents before children.
    pub fn world_nodes(&self) -> Vec<(gltf::Node<'_>, Mat4)> {
        let mut out = Vec::new();
        let mut stack: Vec<(gltf::Node, Mat4)> = self
            .document
            .scenes()
            .flat_map(|s| s.nodes().collect::<Vec<_>>())
            .map(|n| (n, Mat4::IDENTITY))
            .collect();
        stack.reverse();
        while let Some((node, parent)) = stack.pop() {
            let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
            let children: Vec<_> = node.children().collect();
            for child in children.into_iter().rev() {
                stack.push((child, world));
            }
            out.push((node, world));
        }
        out
    }

    /// The elements of an accessor as floats, `n` components each (normalized integers mapped
    /// to 0..1 or −1..1 as glTF says).
    pub fn floats(&self, accessor: &gltf::Accessor) -> Result<Vec<f32>, ReadError> {
        let what = || format!("accessor {}", accessor.index());
        if accessor.sparse().is_some() {
            return Err(ReadError(format!(
                "{} is sparse, which this tool does not read",
                what()
            )));
        }
        let components = accessor.dimensions().multiplicity();
        let count = accessor.count();
        let Some(view) = accessor.view() else {
            // An accessor without a view is all zeros.
            return Ok(vec![0.0; count * components]);
        };
        let data = &self.buffers[view.buffer().index()];
        let size = accessor.data_type().size();
        let element = size * components;
        let stride = view.stride().unwrap_or(element);
        let start = view.offset() + accessor.offset();
        let end = if count == 0 {
            start
        } else {
            start + stride * (count - 1) + element
        };
        let view_end = view.offset() + view.length();
        if end > view_end || view_end > data.len() {
            return Err(ReadError(format!(
                "{} reaches past the end of its buffer",
                what()
            )));
        }
        let normalized = accessor.normalized();
        let data_type = accessor.data_type();
        if data_type == DataType::F32 && stride == element {
            // Tightly packed floats (what this project and most tools write): one pass.
            return Ok(data[start..end]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect());
        }
        let mut out = Vec::with_capacity(count * components);
        for i in 0..count {
            let base = start + i * stride;
            for k in 0..components {
                let b = &data[base + k * size..base + (k + 1) * size];
                out.push(component(data_type, b, normalized));
            }
        }
        Ok(out)
    }
}

/// Reads what the `gltf` crate's strict reading refuses although glTF 2.0 allows it: a scene
/// without `nodes` (Blender's exporter writes an empty scene so). The JSON is completed and read
/// again, and the result validated as usual.
fn tolerant(bytes: &[u8]) -> Option<gltf::Gltf> {
    let (json, blob) = if bytes.starts_with(b"glTF") {
        let glb = gltf::binary::Glb::from_slice(bytes).ok()?;
        (glb.json.into_owned(), glb.bin.map(|b| b.into_owned()))
    } else {
        (bytes.to_vec(), None)
    };
    let mut value: serde_json::Value = serde_json::from_slice(&json).ok()?;
    for scene in value.get_mut("scenes")?.as_array_mut()? {
        let scene = scene.as_object_mut()?;
        scene
            .entry("nodes")
            .or_insert_with(|| serde_json::Value::Array(Vec::new()));
    }
    let root: gltf::json::Root = serde_json::from_value(value).ok()?;
    let document = gltf::Document::from_json(root).ok()?;
    Some(gltf::Gltf { document, blob })
}

fn component(data_type: DataType, b: &[u8], normalized: bool) -> f32 {
    let scale = |v: f32, max: f32| if normalized { (v / max).max(-1.0) } else { v };
    match data_type {
        DataType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        DataType::U8 => scale(b[0] as f32, 255.0),
        DataType::I8 => scale(b[0] as i8 as f32, 127.0),
        DataType::U16 => scale(u16::from_le_bytes([b[0], b[1]]) as f32, 65535.0),
        DataType::I16 => scale(i16::from_le_bytes([b[0], b[1]]) as f32, 32767.0),
        DataType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
    }
}

/// The triangles of a mesh, three corners each, with every per-corner attribute.
#[derive(Debug, Clone, Default)]
pub struct Triangles {
    pub positions: Vec<Vec3>,
    pub uvs: Option<Vec<[f32; 2]>>,
    /// RGBA, linear; alpha 1 where the file had RGB only.
    pub colours: Option<Vec<[f32; 4]>>,
    /// Custom scalar attributes by name without the leading underscore (`FLAGS`, `RGB_0`).
    pub scalars: HashMap<String, Vec<f32>>,
    /// Name of each triangle's material.
    pub materials: Vec<Option<String>>,
}

impl Triangles {
    pub fn count(&self) -> usize {
        self.positions.len() / 3
    }

    pub fn scalar(&self, name: &str) -> Option<&[f32]> {
        self.scalars.get(name).map(Vec::as_slice)
    }
}

impl Document {
    /// All triangles of a mesh. Attributes that only some primitives have are filled with NaN
    /// in the others, so that a caller sees which corners lack them.
    pub fn triangles(&self, mesh: &gltf::Mesh) -> Result<Triangles, ReadError> {
        let mut out = Triangles::default();
        let mut uvs: Vec<[f32; 2]> = Vec::new();
        let mut colours: Vec<[f32; 4]> = Vec::new();
        let (mut any_uv, mut any_colour) = (false, false);
        let mut scalars: HashMap<String, Vec<f32>> = HashMap::new();
        for prim in mesh.primitives() {
            if prim.mode() != Mode::Triangles {
                return Err(ReadError(format!(
                    "primitive {} uses {:?}; only triangle lists carry faces",
                    prim.index(),
                    prim.mode()
                )));
            }
            let Some(position) = prim.get(&Semantic::Positions) else {
                return Err(ReadError(format!(
                    "primitive {} has no POSITION",
                    prim.index()
                )));
            };
            let positions = self.floats(&position)?;
            let n = position.count();
            let indices: Vec<usize> = match prim.indices() {
                Some(acc) => self.floats(&acc)?.into_iter().map(|i| i as usize).collect(),
                None => (0..n).collect(),
            };
            if indices.len() % 3 != 0 || indices.iter().any(|&i| i >= n) {
                return Err(ReadError(format!(
                    "primitive {}: its indices are not whole triangles of its vertices",
                    prim.index()
                )));
            }
            let before = out.positions.len();
            out.positions.extend(
                indices
                    .iter()
                    .map(|&i| Vec3::from_slice(&positions[3 * i..3 * i + 3])),
            );
            let material = prim.material().name().map(str::to_string);
            out.materials
                .extend(std::iter::repeat_n(material, indices.len() / 3));

            let uv = match prim.get(&Semantic::TexCoords(0)) {
                Some(acc) if acc.dimensions() == Dimensions::Vec2 => Some(self.floats(&acc)?),
                _ => None,
            };
            any_uv |= uv.is_some();
            uvs.extend(indices.iter().map(|&i| {
                uv.as_ref()
                    .map_or([f32::NAN; 2], |u| [u[2 * i], u[2 * i + 1]])
            }));

            let colour = match prim.get(&Semantic::Colors(0)) {
                Some(acc) => Some((self.floats(&acc)?, acc.dimensions().multiplicity())),
                None => None,
            };
            any_colour |= colour.is_some();
            colours.extend(indices.iter().map(|&i| match &colour {
                Some((c, 4)) => [c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]],
                Some((c, _)) => [c[3 * i], c[3 * i + 1], c[3 * i + 2], 1.0],
                None => [f32::NAN; 4],
            }));

            for (semantic, acc) in prim.attributes() {
                let Semantic::Extras(name) = semantic else {
                    continue;
                };
                if acc.dimensions() != Dimensions::Scalar {
                    continue;
                }
                let values = self.floats(&acc)?;
                let column = scalars
                    .entry(name)
                    .or_insert_with(|| vec![f32::NAN; before]);
                column.resize(before, f32::NAN);
                column.extend(indices.iter().map(|&i| values[i]));
            }
        }
        let total = out.positions.len();
        for column in scalars.values_mut() {
            column.resize(total, f32::NAN);
        }
        out.scalars = scalars;
        out.uvs = any_uv.then_some(uvs);
        out.colours = any_colour.then_some(colours);
        Ok(out)
    }
}

/// A node's or scene's extras as JSON, with what Blender made of ours undone: Blender keeps
/// extras as custom properties, and a value it cannot hold as one (a dictionary with an integer
/// beyond 32 bits, such as a zone mask with bit 31 or a CRC) it keeps as the text of its Python
/// `repr`, which its exporter then writes as a JSON string. Such a string (one that starts with
/// `{` or `[`) at the top level is read back as the value it spells.
pub fn extras_json(extras: &gltf::json::Extras) -> Option<serde_json::Value> {
    let mut value: serde_json::Value = serde_json::from_str(extras.as_ref()?.get()).ok()?;
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
    Some(value)
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

struct PyParser<'a> {
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
