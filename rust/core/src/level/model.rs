//! Models: the TRAK tile models (the level's construction kit) and the STPC object models share
//! one format (note 001 §3): all headers of a call in a row, then each model's vertices, faces and
//! collision polygons.

use crate::error::{BuildError, ParseError};
use crate::raw::{CollisionPolygon, Face, ModelHeader, StpcModelExtra, Vertex};
use crate::reader::{Reader, Writer};

/// The header fields that are pointers set by the engine on load (0 in every known file), kept so
/// that a file with other values there still round-trips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadSlots {
    pub vertex_pointer: u32,
    pub face_pointer: u32,
    pub reserved: u16,
    pub collision_pointer: u32,
}

/// A model in export space (y up, z negated relative to game space).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    pub centre: [f32; 3],
    /// Bounding box used for frustum culling; slightly larger than the vertices.
    pub box_corners: [[f32; 3]; 8],
    pub vertices: Vec<Vertex>,
    pub faces: Vec<Face>,
    /// Collision polygons in the three groups of the header (the engine always uses all three;
    /// their meaning is unknown). Game space, relative to the tile.
    pub collision: [Vec<CollisionPolygon>; 3],
    pub slots: LoadSlots,
}

impl Model {
    pub fn collision_count(&self) -> usize {
        self.collision.iter().map(Vec::len).sum()
    }

    /// All collision polygons in file order (groups A, B, C).
    pub fn collision_polygons(&self) -> impl Iterator<Item = &CollisionPolygon> {
        self.collision.iter().flatten()
    }

    fn from_header(h: &ModelHeader) -> Model {
        Model {
            centre: h.centre,
            box_corners: h.box_corners,
            vertices: Vec::new(),
            faces: Vec::new(),
            collision: Default::default(),
            slots: LoadSlots {
                vertex_pointer: h.vertex_pointer,
                face_pointer: h.face_pointer,
                reserved: h.reserved,
                collision_pointer: h.collision_pointer,
            },
        }
    }

    fn header(&self, what: &str) -> Result<ModelHeader, BuildError> {
        let mut collision_counts = [0u16; 3];
        for (count, group) in collision_counts.iter_mut().zip(&self.collision) {
            *count = u16_count(group.len(), &format!("{what}: collision group"))?;
        }
        Ok(ModelHeader {
            centre: self.centre,
            box_corners: self.box_corners,
            vertex_count: u16_count(self.vertices.len(), &format!("{what}: vertices"))?,
            face_count: u16_count(self.faces.len(), &format!("{what}: faces"))?,
            vertex_pointer: self.slots.vertex_pointer,
            face_pointer: self.slots.face_pointer,
            collision_counts,
            reserved: self.slots.reserved,
            collision_pointer: self.slots.collision_pointer,
        })
    }

    fn read_data(&mut self, r: &mut Reader, h: &ModelHeader, what: &str) -> Result<(), ParseError> {
        self.vertices = r.records(h.vertex_count as u64, &format!("{what}: vertices"))?;
        self.faces = r.records(h.face_count as u64, &format!("{what}: faces"))?;
        for (group, &count) in self.collision.iter_mut().zip(&h.collision_counts) {
            *group = r.records(count as u64, &format!("{what}: collision polygons"))?;
        }
        Ok(())
    }

    fn write_data(&self, w: &mut Writer) {
        w.records(&self.vertices);
        w.records(&self.faces);
        for group in &self.collision {
            w.records(group);
        }
    }

    fn data_size(&self) -> usize {
        self.vertices.len() * 24 + self.faces.len() * 28 + self.collision_count() * 32
    }
}

pub(crate) fn u16_count(n: usize, what: &str) -> Result<u16, BuildError> {
    u16::try_from(n).map_err(|_| BuildError::TooMany {
        what: what.to_string(),
        count: n as u64,
        max: u16::MAX as u64,
    })
}

pub(crate) fn u32_count(n: usize, what: &str) -> Result<u32, BuildError> {
    u32::try_from(n).map_err(|_| BuildError::TooMany {
        what: what.to_string(),
        count: n as u64,
        max: u32::MAX as u64,
    })
}

/// The TRAK chunk: the tile models.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trak {
    pub models: Vec<Model>,
}

impl Trak {
    pub fn parse(r: &mut Reader) -> Result<Trak, ParseError> {
        let headers: Vec<ModelHeader> = r.counted_records("TRAK model headers")?;
        let mut models = Vec::with_capacity(headers.len());
        for (i, h) in headers.iter().enumerate() {
            let mut model = Model::from_header(h);
            model.read_data(r, h, &format!("model {i}"))?;
            models.push(model);
        }
        r.expect_end("the last TRAK model")?;
        Ok(Trak { models })
    }

    pub fn write(&self, w: &mut Writer) -> Result<(), BuildError> {
        w.bytes.reserve(
            4 + self
                .models
                .iter()
                .map(|m| 0x84 + m.data_size())
                .sum::<usize>(),
        );
        w.u32(u32_count(self.models.len(), "TRAK models")?);
        for (i, model) in self.models.iter().enumerate() {
            w.record(&model.header(&format!("TRAK model {i}"))?);
        }
        for model in &self.models {
            model.write_data(w);
        }
        Ok(())
    }
}

/// An STPC object model: a model plus, for skinned models, the vertex count of each bone.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjectModel {
    pub model: Model,
    /// nVerts for rigid models, 0 for skinned ones (kept as found).
    pub rigid_vertex_count: u16,
    /// Vertices per bone, in order (sum = nVerts); empty for rigid models.
    pub bone_vertex_counts: Vec<u16>,
    pub bone_pointer: u32,
}

impl ObjectModel {
    /// One STPC model: its 0x8c header directly followed by its data.
    pub fn parse(r: &mut Reader, what: &str) -> Result<ObjectModel, ParseError> {
        let header: ModelHeader = r.record(&format!("{what}: header"))?;
        let extra: StpcModelExtra = r.record(&format!("{what}: header"))?;
        let bone_vertex_counts = r.u16s(extra.bone_count as u64, &format!("{what}: bones"))?;
        let mut model = Model::from_header(&header);
        model.read_data(r, &header, what)?;
        Ok(ObjectModel {
            model,
            rigid_vertex_count: extra.rigid_vertex_count,
            bone_vertex_counts,
            bone_pointer: extra.bone_pointer,
        })
    }

    pub fn write(&self, w: &mut Writer, what: &str) -> Result<(), BuildError> {
        w.record(&self.model.header(what)?);
        w.record(&StpcModelExtra {
            rigid_vertex_count: self.rigid_vertex_count,
            bone_count: u16_count(self.bone_vertex_counts.len(), &format!("{what}: bones"))?,
            bone_pointer: self.bone_pointer,
        });
        w.u16s(&self.bone_vertex_counts);
        self.model.write_data(w);
        Ok(())
    }

    pub fn is_skinned(&self) -> bool {
        !self.bone_vertex_counts.is_empty()
    }

    pub(crate) fn size(&self) -> usize {
        0x8c + self.bone_vertex_counts.len() * 2 + self.model.data_size()
    }
}
