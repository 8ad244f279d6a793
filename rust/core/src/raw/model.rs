//! The model format TRAK and STPC share (FORMAT.md §3), and the TRAK chunk: `u32 n`, all n
//! headers (0x84 bytes each), then each model's vertices, faces and collision polygons. An STPC
//! object model is its 0x8c-byte header directly followed by its data.
//!
//! The header's counts are not fields of [`Model`]: the reader takes them from the header, the
//! writer computes the header from the model, so a count cannot disagree with what it counts.

use binrw::binrw;

use crate::container::Tag;
use crate::error::BuildError;
use crate::raw::stream::{
    bad_value, bytes_left, labelled_culprit, records, u16_count, u32_count, ChunkLayout, Culprit,
    Record,
};
use crate::raw::{CollisionPolygon, Face, ModelHeader, Vertex};

/// An STPC model's header: the TRAK header and 8 bytes more (FORMAT.md §3).
pub const OBJECT_HEADER_SIZE: usize = 0x8c;

/// The header fields that are pointers set by the engine on load (0 in every known file), kept so
/// that a file with other values there still round-trips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadSlots {
    pub vertex_pointer: u32,
    pub face_pointer: u32,
    pub reserved: u16,
    pub collision_pointer: u32,
}

/// A model in export space (y up, z negated relative to game space): its header's values and its
/// data. Read with its header, written without it (the header is [`Model::header`]).
#[binrw]
#[brw(little)]
#[br(import(header: ModelHeader))]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    #[br(calc = header.centre)]
    #[bw(ignore)]
    pub centre: [f32; 3],
    /// Bounding box used for frustum culling; slightly larger than the vertices.
    #[br(calc = header.box_corners)]
    #[bw(ignore)]
    pub box_corners: [[f32; 3]; 8],
    #[br(parse_with = records(header.vertex_count, "vertices"))]
    pub vertices: Vec<Vertex>,
    #[br(parse_with = records(header.face_count, "faces"))]
    pub faces: Vec<Face>,
    /// Collision polygons in the three groups of the header (the engine always uses all three;
    /// their meaning is unknown). Game space, relative to the tile.
    #[br(parse_with = collision_groups(header.collision_counts))]
    pub collision: [Vec<CollisionPolygon>; 3],
    #[br(calc = LoadSlots {
        vertex_pointer: header.vertex_pointer,
        face_pointer: header.face_pointer,
        reserved: header.reserved,
        collision_pointer: header.collision_pointer,
    })]
    #[bw(ignore)]
    pub slots: LoadSlots,
}

fn collision_groups<R: binrw::io::Read + binrw::io::Seek>(
    counts: [u16; 3],
) -> impl FnOnce(&mut R, binrw::Endian, ()) -> binrw::BinResult<[Vec<CollisionPolygon>; 3]> {
    move |r, endian, ()| {
        let [a, b, c] =
            counts.map(|n| move |r: &mut R| records(n, "collision polygons")(r, endian, ()));
        Ok([a(r)?, b(r)?, c(r)?])
    }
}

impl Model {
    pub fn collision_count(&self) -> usize {
        self.collision.iter().map(Vec::len).sum()
    }

    /// All collision polygons in file order (groups A, B, C).
    pub fn collision_polygons(&self) -> impl Iterator<Item = &CollisionPolygon> {
        self.collision.iter().flatten()
    }

    /// What shows that the data was read with other counts than it was written with: a vertex
    /// that is no number, a vertex or face normal that is neither unit length nor 0, a face
    /// using a vertex the model lacks or with its always-0 word set, a collision plane with its
    /// padding byte set or a normal neither 0 nor near unit length ×127 (FORMAT.md §3, §4).
    /// Bytes of one record read as another's rarely keep all of these, and only a TRAK that did
    /// not read is searched for them, so the margins are wide.
    pub(crate) fn misfit(&self) -> Option<String> {
        let unit_or_zero = |n: [f32; 3]| {
            let length = n.iter().map(|x| x * x).sum::<f32>().sqrt();
            length < 1e-3 || (0.5..1.5).contains(&length)
        };
        let nv = self.vertices.len();
        for (v, vertex) in self.vertices.iter().enumerate() {
            if !vertex.position.iter().all(|x| x.is_finite()) || !unit_or_zero(vertex.normal) {
                return Some(format!("vertex {v} is {:?}", vertex));
            }
        }
        for (f, face) in self.faces.iter().enumerate() {
            if let Some(c) = face.corners.iter().find(|&&c| c as usize >= nv) {
                return Some(format!("face {f} uses vertex {c} of {nv}"));
            }
            if face.reserved != 0 {
                return Some(format!("face {f}'s always-0 word is {}", face.reserved));
            }
            if !unit_or_zero([face.plane[0], face.plane[1], face.plane[2]]) {
                return Some(format!("face {f}'s plane is {:?}", face.plane));
            }
        }
        self.collision_polygons().enumerate().find_map(|(p, poly)| {
            let planes = &poly.planes[..=poly.edge_count()];
            let odd = planes.iter().find(|plane| {
                let length = plane
                    .normal
                    .map(|n| f32::from(n).powi(2))
                    .iter()
                    .sum::<f32>();
                plane.pad != 0 || (length > 0.0 && !(100.0..150.0).contains(&length.sqrt()))
            })?;
            Some(format!("collision polygon {p} has the plane {odd:?}"))
        })
    }

    /// The bytes of its data in the file (its header apart).
    pub(crate) fn data_size(&self) -> usize {
        self.vertices.len() * Vertex::SIZE
            + self.faces.len() * Face::SIZE
            + self.collision_count() * CollisionPolygon::SIZE
    }

    /// The header the file stores for this model, its counts taken from its data.
    pub fn header(&self) -> Result<ModelHeader, BuildError> {
        let mut collision_counts = [0u16; 3];
        for (count, group) in collision_counts.iter_mut().zip(&self.collision) {
            *count = u16_count(group.len(), "collision group")?;
        }
        Ok(ModelHeader {
            centre: self.centre,
            box_corners: self.box_corners,
            vertex_count: u16_count(self.vertices.len(), "vertices")?,
            face_count: u16_count(self.faces.len(), "faces")?,
            vertex_pointer: self.slots.vertex_pointer,
            face_pointer: self.slots.face_pointer,
            collision_counts,
            reserved: self.slots.reserved,
            collision_pointer: self.slots.collision_pointer,
        })
    }
}

/// The TRAK chunk: the tile models (the level's construction kit).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trak {
    #[br(temp)]
    #[bw(try_calc = u32_count(models.len(), "TRAK models"))]
    model_count: u32,
    #[br(temp, parse_with = records(model_count, "TRAK model headers"))]
    #[bw(try_calc = headers(models))]
    headers: Vec<ModelHeader>,
    #[br(parse_with = model_data(&headers))]
    pub models: Vec<Model>,
}

impl ChunkLayout for Trak {
    const TAG: Tag = Tag::TRAK;
    const LAST: &'static str = "the last TRAK model";
}

fn headers(models: &[Model]) -> Result<Vec<ModelHeader>, BuildError> {
    models
        .iter()
        .enumerate()
        .map(|(i, m)| m.header().map_err(|e| e.within(&format!("TRAK model {i}"))))
        .collect()
}

/// The models' data, each read with its header's counts. A count that is off shifts every model
/// after it, and the bytes run out (or are left over) only at the end: then the error names
/// the first model whose data shows it was misread, where there is one.
fn model_data<R: binrw::io::Read + binrw::io::Seek>(
    headers: &[ModelHeader],
) -> impl FnOnce(&mut R, binrw::Endian, ()) -> binrw::BinResult<Vec<Model>> + '_ {
    move |r, endian, ()| {
        let mut models = Vec::with_capacity(headers.len());
        let mut starts = Vec::with_capacity(headers.len());
        for (i, h) in headers.iter().enumerate() {
            starts.push(r.stream_position()?);
            match <Model as binrw::BinRead>::read_options(r, endian, (*h,)) {
                Ok(model) => models.push(model),
                Err(e) => {
                    return Err(misread(&models, &starts)
                        .unwrap_or_else(|| labelled_culprit(e, Culprit::Model(i as u32))))
                }
            }
        }
        // TRAK ends with its last model (FORMAT.md §5).
        if bytes_left(r)?.1 > 0 {
            if let Some(e) = misread(&models, &starts) {
                return Err(e);
            }
        }
        Ok(models)
    }
}

/// The first model whose data does not read as a model, as the error that names it.
fn misread(models: &[Model], starts: &[u64]) -> Option<binrw::Error> {
    models
        .iter()
        .zip(starts)
        .enumerate()
        .find_map(|(i, (m, &at))| {
            let why = m.misfit()?;
            let err = bad_value(
                at,
                "its data",
                "what the counts in its header describe (one is off, and every model after it is \
             read shifted)",
                why,
            );
            Some(labelled_culprit(err, Culprit::Model(i as u32)))
        })
}

/// An STPC object model: its header, the bone table's vertex counts and the model's data.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjectModel {
    #[br(temp)]
    #[bw(try_calc = model.header())]
    header: ModelHeader,
    /// nVerts for rigid models, 0 for skinned ones (FORMAT.md §3; kept as found).
    pub rigid_vertex_count: u16,
    #[br(temp)]
    #[bw(try_calc = u16_count(bone_vertex_counts.len(), "bones"))]
    bone_count: u16,
    pub bone_pointer: u32,
    /// Vertices per bone, in order (sum = nVerts); empty for rigid models.
    #[br(parse_with = records(bone_count, "bones"))]
    pub bone_vertex_counts: Vec<u16>,
    #[br(args(header))]
    pub model: Model,
}

impl ObjectModel {
    pub fn is_skinned(&self) -> bool {
        !self.bone_vertex_counts.is_empty()
    }

    /// Its bytes in the file.
    pub(crate) fn size(&self) -> usize {
        OBJECT_HEADER_SIZE + self.bone_vertex_counts.len() * 2 + self.model.data_size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::stream::{read_chunk, write_chunk, write_part};

    /// A TRAK of one model: its header, then 1 vertex, 1 face and one collision polygon in
    /// group B, as FORMAT.md §3 lays them out.
    fn one_model_trak() -> Vec<u8> {
        let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let u16s = |v: &[u16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        [
            1u32.to_le_bytes().to_vec(),
            f32s(&[0.5, 1.0, -0.5]),
            f32s(&[2.0; 24]),
            u16s(&[1, 1]),
            vec![0; 8],
            u16s(&[0, 1, 0, 7]),
            vec![0; 4],
            f32s(&[0.0, 1.0, 0.0, 0.0, 1.0, 0.0]),
            u16s(&[0x808, 0, 0, 0, 3, 0]),
            f32s(&[0.0, 1.0, 0.0, 0.0]),
            [1u8, 30].into_iter().chain([0; 30]).collect(),
        ]
        .concat()
    }

    #[test]
    fn trak_reads_and_writes_back_with_its_counts_from_the_data() {
        let bytes = one_model_trak();
        let trak: Trak = read_chunk(&bytes, 0, ()).unwrap();
        let [model] = &trak.models[..] else {
            panic!("one model")
        };
        assert_eq!(model.centre, [0.5, 1.0, -0.5]);
        assert_eq!(model.vertices.len(), 1);
        assert_eq!(model.faces[0].texture, 3);
        assert_eq!(model.collision.each_ref().map(Vec::len), [0, 1, 0]);
        assert_eq!(model.collision[1][0].material, 30);
        assert_eq!(model.slots.reserved, 7);
        assert_eq!(write_chunk(&trak, ()).unwrap(), bytes);

        let mut more = trak.clone();
        more.models[0].vertices.push(Vertex::default());
        let written = write_chunk(&more, ()).unwrap();
        assert_eq!(written.len(), bytes.len() + 24);
        assert_eq!(
            written[4 + 0x6c..4 + 0x6e],
            2u16.to_le_bytes(),
            "vertex count"
        );

        let object = ObjectModel::default();
        let written = write_part(&object, (), "STPC").unwrap();
        assert_eq!(
            (written.len(), object.size()),
            (OBJECT_HEADER_SIZE, OBJECT_HEADER_SIZE)
        );
    }

    #[test]
    fn errors_say_where_what_was_expected_and_what_was_found() {
        let bytes = one_model_trak();
        let err = |bytes: &[u8]| {
            read_chunk::<Trak>(bytes, 0x100, ())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(&bytes[..2]),
            "TRAK chunk, byte 0x100: model count needs 4 bytes, only 2 are left"
        );
        assert_eq!(
            err(&bytes[..100]),
            "TRAK chunk, byte 0x104: TRAK model headers says 1 entries of 132 bytes, but only 96 \
             bytes are left"
        );
        assert_eq!(
            err(&bytes[..bytes.len() - 1]),
            "TRAK chunk, byte 0x1bc: model 0: collision polygons says 1 entries of 32 bytes, but \
             only 31 bytes are left"
        );
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            err(&longer),
            "TRAK chunk, byte 0x1dc: 1 bytes left over after the last TRAK model"
        );
    }
}
