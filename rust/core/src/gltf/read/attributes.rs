//! Accessors and the triangles of a mesh: every range checked, every value finite, the types
//! the mapping expects.

use std::collections::HashMap;

use glam::Vec3;
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};

use super::{extras_json, Document, ReadError, MAX_MESH_TRIANGLES};
use crate::gltf::material::Material;

/// An accessor's elements in its buffer, with every range checked.
pub(super) struct Elements<'a> {
    pub(super) data: &'a [u8],
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) stride: usize,
    /// Bytes of one component.
    pub(super) size: usize,
    pub(super) components: usize,
    pub(super) count: usize,
    pub(super) data_type: DataType,
    pub(super) normalized: bool,
}

pub(super) fn component(data_type: DataType, b: &[u8], normalized: bool) -> f32 {
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

/// Refuses an accessor whose type or component type is not what `semantic` needs.
pub(super) fn expect_type(
    accessor: &gltf::Accessor,
    prim: usize,
    semantic: &str,
    dimensions: &[Dimensions],
    component_ok: impl Fn(DataType, bool) -> bool,
    expected: &str,
) -> Result<(), ReadError> {
    let (d, t, normalized) = (
        accessor.dimensions(),
        accessor.data_type(),
        accessor.normalized(),
    );
    if dimensions.contains(&d) && component_ok(t, normalized) {
        return Ok(());
    }
    Err(ReadError::new(format!(
        "primitive {prim}: {semantic} (accessor {}) is {}{} {}; it must be {expected}",
        accessor.index(),
        if normalized { "normalized " } else { "" },
        type_name(d),
        component_name(t),
    )))
}

pub(super) fn type_name(d: Dimensions) -> &'static str {
    match d {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

pub(super) fn component_name(t: DataType) -> &'static str {
    match t {
        DataType::I8 => "BYTE",
        DataType::U8 => "UNSIGNED_BYTE",
        DataType::I16 => "SHORT",
        DataType::U16 => "UNSIGNED_SHORT",
        DataType::U32 => "UNSIGNED_INT",
        DataType::F32 => "FLOAT",
    }
}

/// Floats, or integers a tool stored as normalized 8- or 16-bit values (colours, UVs).
pub(super) fn float_or_normalized(t: DataType, normalized: bool) -> bool {
    t == DataType::F32 || (normalized && matches!(t, DataType::U8 | DataType::U16))
}

/// Whether `name` (without its leading underscore) is a custom attribute of the mapping
/// (MAPPING.md): those are SCALARs holding integers.
pub fn is_mapping_attribute(name: &str) -> bool {
    const NAMES: [&str; 13] = [
        "FLAGS",
        "TEXTURE",
        "FACE",
        "TILE",
        "VERTEX",
        "POLYGON",
        "MATERIAL",
        "KIND",
        "GROUP",
        "ZONE",
        "CELL",
        "SOURCE_FACE",
        "BONE",
    ];
    let framed = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
    };
    NAMES.contains(&name) || framed("RGB_") || framed("ALPHA_")
}

/// The triangles of a mesh, three corners each, with every per-corner attribute.
#[derive(Debug, Clone, Default)]
pub struct Triangles {
    pub positions: Vec<Vec3>,
    pub uvs: Option<Vec<[f32; 2]>>,
    /// RGBA, linear; alpha 1 where the file had RGB only.
    pub colours: Option<Vec<[f32; 4]>>,
    /// The mapping's custom attributes by name without the leading underscore (`FLAGS`,
    /// `RGB_0`).
    pub scalars: HashMap<String, Vec<f32>>,
    /// Each triangle's material.
    pub materials: Vec<Material>,
}

impl Triangles {
    pub fn count(&self) -> usize {
        self.positions.len() / 3
    }

    pub fn scalar(&self, name: &str) -> Option<&[f32]> {
        self.scalars.get(name).map(Vec::as_slice)
    }

    /// The triangles `ts`, in that order, with every attribute.
    pub fn select(&self, ts: &[usize]) -> Triangles {
        let corners = || ts.iter().flat_map(|&t| 3 * t..3 * t + 3);
        Triangles {
            positions: corners().map(|c| self.positions[c]).collect(),
            uvs: self.uvs.as_ref().map(|u| corners().map(|c| u[c]).collect()),
            colours: self
                .colours
                .as_ref()
                .map(|u| corners().map(|c| u[c]).collect()),
            scalars: self
                .scalars
                .iter()
                .map(|(k, v)| (k.clone(), corners().map(|c| v[c]).collect()))
                .collect(),
            materials: ts.iter().map(|&t| self.materials[t].clone()).collect(),
        }
    }
}

/// The vertices of one primitive whose values are not finite, and the first attribute seen so.
pub(super) struct NonFinite {
    vertices: Vec<bool>,
    first: Option<String>,
}

impl NonFinite {
    fn check(&mut self, semantic: &str, values: &[f32], components: usize) {
        for (v, element) in values.chunks_exact(components).enumerate() {
            if !element.iter().all(|x| x.is_finite()) {
                self.vertices[v] = true;
                self.first.get_or_insert_with(|| semantic.to_string());
            }
        }
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
            let before = out.positions.len();
            let Primitive {
                positions,
                uv,
                colour,
                customs,
                indices,
                material,
            } = self.primitive(&prim, before)?;
            out.positions.extend(
                indices
                    .iter()
                    .map(|&i| Vec3::from_slice(&positions[3 * i..3 * i + 3])),
            );
            out.materials
                .extend(std::iter::repeat_n(material, indices.len() / 3));

            any_uv |= uv.is_some();
            uvs.extend(indices.iter().map(|&i| {
                uv.as_ref()
                    .map_or([f32::NAN; 2], |u| [u[2 * i], u[2 * i + 1]])
            }));

            any_colour |= colour.is_some();
            colours.extend(indices.iter().map(|&i| match &colour {
                Some((c, 4)) => [c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]],
                Some((c, _)) => [c[3 * i], c[3 * i + 1], c[3 * i + 2], 1.0],
                None => [f32::NAN; 4],
            }));

            for (name, values) in customs {
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

    /// One primitive read and checked: triangles, a POSITION, every attribute of the type the
    /// mapping reads and one element per vertex, every value finite (the faces named, counted
    /// after the `before` corners of the primitives before it, where one is not).
    fn primitive(&self, prim: &gltf::Primitive, before: usize) -> Result<Primitive, ReadError> {
        let p = prim.index();
        if prim.mode() != Mode::Triangles {
            return Err(ReadError::new(format!(
                "primitive {p} uses {:?}; only triangle lists carry faces",
                prim.mode()
            )));
        }
        let Some(position) = prim.get(&Semantic::Positions) else {
            return Err(ReadError::new(format!("primitive {p} has no POSITION")));
        };
        vec3_floats(&position, p, "POSITION")?;
        let n = position.count();
        let corners = prim.indices().map_or(n, |acc| acc.count());
        if (before + corners) / 3 > MAX_MESH_TRIANGLES {
            return Err(ReadError::new(format!(
                "has more than {MAX_MESH_TRIANGLES} triangles, more than a level can use"
            )));
        }
        // Read first: the data bound the vertex count before anything is allocated for it.
        let positions = self.floats(&position)?;
        let mut bad = NonFinite {
            vertices: vec![false; n],
            first: None,
        };
        bad.check("POSITION", &positions, 3);
        let (uv, colour) = self.vertex_attributes(prim, n, &mut bad)?;
        let customs = self.custom_attributes(prim, n)?;
        let indices: Vec<usize> = match prim.indices() {
            Some(acc) => self.indices(&acc, p)?,
            None => (0..n).collect(),
        };
        if indices.len() % 3 != 0 || indices.iter().any(|&i| i >= n) {
            return Err(ReadError::new(format!(
                "primitive {p}: its indices are not whole triangles of its vertices"
            )));
        }
        if let Some(semantic) = bad.first {
            let faces = (0..indices.len() / 3)
                .filter(|t| (0..3).any(|k| bad.vertices[indices[3 * t + k]]))
                .map(|t| before / 3 + t)
                .collect();
            return Err(ReadError {
                message: format!(
                    "primitive {p}: {semantic} holds values that are not finite numbers (NaN or infinity)"
                ),
                faces,
            });
        }
        let material = prim.material();
        let material = Material::read(material.name(), extras_json(material.extras()).as_ref());
        Ok(Primitive {
            positions,
            uv,
            colour,
            customs,
            indices,
            material,
        })
    }

    /// A primitive's NORMAL (checked only: the game's normals are the faces'), TEXCOORD_0 and
    /// COLOR_0 (with its components), each value's finiteness into `bad`.
    fn vertex_attributes(
        &self,
        prim: &gltf::Primitive,
        n: usize,
        bad: &mut NonFinite,
    ) -> Result<(Option<Vec<f32>>, Option<Colours>), ReadError> {
        let p = prim.index();
        if let Some(acc) = prim.get(&Semantic::Normals) {
            vec3_floats(&acc, p, "NORMAL")?;
            same_count(&acc, p, "NORMAL", n)?;
            bad.check("NORMAL", &self.floats(&acc)?, 3);
        }
        let uv = match prim.get(&Semantic::TexCoords(0)) {
            Some(acc) => {
                expect_type(
                    &acc,
                    p,
                    "TEXCOORD_0",
                    &[Dimensions::Vec2],
                    float_or_normalized,
                    "VEC2 FLOAT (or normalized UNSIGNED_BYTE or UNSIGNED_SHORT)",
                )?;
                same_count(&acc, p, "TEXCOORD_0", n)?;
                let uv = self.floats(&acc)?;
                bad.check("TEXCOORD_0", &uv, 2);
                Some(uv)
            }
            None => None,
        };
        let colour = match prim.get(&Semantic::Colors(0)) {
            Some(acc) => {
                expect_type(
                    &acc,
                    p,
                    "COLOR_0",
                    &[Dimensions::Vec3, Dimensions::Vec4],
                    float_or_normalized,
                    "VEC3 or VEC4 FLOAT (or normalized UNSIGNED_BYTE or UNSIGNED_SHORT)",
                )?;
                same_count(&acc, p, "COLOR_0", n)?;
                let components = acc.dimensions().multiplicity();
                let c = self.floats(&acc)?;
                bad.check("COLOR_0", &c, components);
                Some((c, components))
            }
            None => None,
        };
        Ok((uv, colour))
    }

    /// A primitive's custom attributes of the mapping, by name without the underscore. NaN is
    /// the mapping's "no value" (a face without a base face): not checked.
    fn custom_attributes(
        &self,
        prim: &gltf::Primitive,
        n: usize,
    ) -> Result<Vec<(String, Vec<f32>)>, ReadError> {
        let p = prim.index();
        let mut customs = Vec::new();
        for (semantic, acc) in prim.attributes() {
            let Semantic::Extras(name) = semantic else {
                continue;
            };
            if !is_mapping_attribute(&name) {
                continue;
            }
            let label = format!("_{name}");
            expect_type(
                &acc,
                p,
                &label,
                &[Dimensions::Scalar],
                |t, normalized| t == DataType::F32 || !normalized,
                "SCALAR FLOAT (or a SCALAR of integers)",
            )?;
            same_count(&acc, p, &label, n)?;
            customs.push((name, self.floats(&acc)?));
        }
        Ok(customs)
    }
}

/// POSITION and NORMAL: three floats a vertex.
fn vec3_floats(acc: &gltf::Accessor, p: usize, semantic: &str) -> Result<(), ReadError> {
    let is_float = |t: DataType, _| t == DataType::F32;
    expect_type(
        acc,
        p,
        semantic,
        &[Dimensions::Vec3],
        is_float,
        "VEC3 FLOAT",
    )
}

/// COLOR_0's values and how many a vertex has (3 or 4).
type Colours = (Vec<f32>, usize);

/// One primitive's vertex data as read, and the corners of its triangles.
struct Primitive {
    positions: Vec<f32>,
    uv: Option<Vec<f32>>,
    colour: Option<Colours>,
    customs: Vec<(String, Vec<f32>)>,
    indices: Vec<usize>,
    material: Material,
}

/// Every attribute read has one element per vertex (`n`, POSITION's count).
fn same_count(acc: &gltf::Accessor, p: usize, semantic: &str, n: usize) -> Result<(), ReadError> {
    if acc.count() == n {
        Ok(())
    } else {
        Err(ReadError::new(format!(
            "primitive {p}: {semantic} has {} elements, POSITION {n}",
            acc.count()
        )))
    }
}
