"""The level state kept in the .blend: ``Scene.llamawad`` (base WAD, the level's document
extras, the problems of the last check, the last floor probe, the last export's summary and
changes, the export options) and the panels' inputs."""

import bpy
from bpy.props import BoolProperty, CollectionProperty, FloatProperty, FloatVectorProperty, IntProperty, PointerProperty, StringProperty


# The export options, kept by the scene so that the level check and the floor probe convert as
# the last export did (the export operator has them too).
SNAP_UVS = {
    "name": "Snap UVs",
    "description": "Faces whose UVs are no half of a texture rectangle (all the game can show) take the nearest "
    "layout it can show, and the export reports them. Off: such faces are refused and selected",
    "default": False,
}
GENERATE_COLLISION = {
    "name": "Make collision for new meshes",
    "description": "New meshes without a child mesh named \"collision…\" get collision from their floors and walls, "
    "so that the llama can stand on them. Off: they get none, and the export warns about each",
    "default": True,
}

APPLY_MODIFIERS = {
    "name": "Apply modifiers",
    "description": "Write the meshes of tiles, new meshes and collision as the viewport shows them, their "
    "modifiers applied (as Blender's own exporters do). Off: their meshes as they are, modifiers left out",
    "default": True,
}


def _select_problem(self, context):
    # Clicking a problem in the list selects its culprit (Level panel).
    problems = self.problems
    if 0 <= self.problem_index < len(problems):
        from .blender import check

        check.select_problem(context, problems[self.problem_index])


def _select_change(self, context):
    # Clicking a row of the last export's changes selects its tile (Level panel).
    changes = self.changes
    if 0 <= self.change_index < len(changes) and changes[self.change_index].object:
        from .blender import faces

        faces.select_culprit(context, changes[self.change_index].object, [], edit=False)


def _show_collision(self, context):
    from .blender import collision
    from .blender.convert import Refusal

    try:
        collision.show_collision(context, self.show_collision)
    except Refusal as e:
        # An update has no report (the Show collision button's operator says it); the property
        # says what the viewport shows.
        self["show_collision"] = False
        print(f"llamawad: collision not shown: {e}")


class LLAMAWAD_PG_problem(bpy.types.PropertyGroup):
    message: StringProperty(name="Problem")
    code: StringProperty(name="Rule", description="The rule broken (the Rust check's code)")
    error: BoolProperty(name="Error", description="An error (export refuses it); otherwise a warning")
    pre_existing: BoolProperty(name="Pre-existing", description="The base level has this problem already")
    object: StringProperty(name="Object", description="The object at fault; empty for the level as a whole")
    attribute: StringProperty(name="Attribute", description="The FACE attribute that picks the faces at fault")
    value: IntProperty(name="Value", description="The value of that attribute on the faces at fault", default=-1)
    faces: StringProperty(name="Faces", description="Indices of the faces at fault, separated by spaces")

    def face_list(self) -> list[int]:
        return [int(f) for f in self.faces.split()]


class LLAMAWAD_PG_change(bpy.types.PropertyGroup):
    """One line of the last export's changes: a tile and what happened to it, or a figure of
    the whole export (tile −1)."""

    text: StringProperty(name="Change")
    tile: IntProperty(name="Tile", description="The tile in the written level; −1 for the export as a whole", default=-1)
    object: StringProperty(name="Object", description="The object the tile came from; empty when none is in the scene")


class LLAMAWAD_PG_scene(bpy.types.PropertyGroup):
    base_path: StringProperty(
        name="Base WAD",
        description="The level this scene was imported from. Export writes the scene against it: whatever was "
        "not changed keeps the base's bytes",
        subtype="FILE_PATH",
    )
    level_json: StringProperty(
        name="Level document",
        description="The level's glTF scene extras (grid, texture entries, zone masks, source) as JSON",
        options={"HIDDEN"},
    )
    import_warnings: StringProperty(name="Import warnings", options={"HIDDEN"})
    read_only_json: StringProperty(
        name="Read-only parts as imported",
        description="How import made each object model (placement, custom properties, mesh), as JSON: "
        "what export compares with to name edits it cannot write",
        options={"HIDDEN"},
    )
    strat_types_json: StringProperty(
        name="Strat types",
        description="Every strat type the level's code names (llamawad.strats): whether a new strat of it can be "
        "placed and why not, as JSON: what Add strat offers",
        options={"HIDDEN"},
    )
    pages_json: StringProperty(
        name="Pages",
        description="The level's texture pages (llamawad.pages: size, flags, how the image shows each), as JSON: "
        "what the Pages panel lists",
        options={"HIDDEN"},
    )
    last_export: StringProperty(name="Last export", description="What the last export changed")
    changes: CollectionProperty(type=LLAMAWAD_PG_change)
    change_index: IntProperty(name="Change", default=-1, update=_select_change)
    snap_uvs: BoolProperty(**SNAP_UVS)
    generate_collision: BoolProperty(**GENERATE_COLLISION)
    apply_modifiers: BoolProperty(**APPLY_MODIFIERS)
    problems: CollectionProperty(type=LLAMAWAD_PG_problem)
    problem_index: IntProperty(name="Problem", default=-1, update=_select_problem)
    check_summary: StringProperty(name="Check", description="How many problems the last check found, new and in the base already")
    checked: BoolProperty(name="Checked", description="The level check has run since the last change", default=False)
    probe_json: StringProperty(
        name="Floor probe",
        description="The last floor probe: the floor test's result with its polygons' outlines, as JSON",
        options={"HIDDEN"},
    )
    probe_show: BoolProperty(
        name="Draw the probe",
        description="Draw the probed polygon, its tolerance zone and the candidates that lost in the viewport",
        default=True,
    )
    tile_collision_made: BoolProperty(
        name="Tile collision made",
        description="The tiles' collision objects are made. Import leaves them for when collision is first shown or "
        "edited; until then export keeps each tile's model's collision",
        default=True,
        options={"HIDDEN"},
    )
    show_collision: BoolProperty(
        name="Show collision",
        description="Show the collision meshes in the viewport (they never render)",
        default=True,
        update=_show_collision,
    )
    collision_material: IntProperty(
        name="Material",
        description="Collision material byte for the selected collision faces: 0 normal ground, 16 exit floor, "
        "17 and 18 special floors, 30 death plane or water",
        min=0,
        max=255,
    )
    zone: IntProperty(name="Zone", description="Visibility zone (0 to 31) for the selected cells", min=0, max=31)
    view_zone: IntProperty(
        name="Zone", description="The zone whose row of the visibility matrix is shown", min=0, max=31
    )
    # The Light panel: what Bake lighting lights with (game space, y up; colours as the game shows
    # them, 1.0 = raw 0x80; the same conventions as `llamawad bake`).
    light_sun_direction: FloatVectorProperty(
        name="Sun direction",
        description="The way the sun's light travels, in game space (y up): 0, −1, 0 is a sun straight overhead",
        size=3,
        default=(0.4, -1.0, 0.3),
    )
    light_sun_colour: FloatVectorProperty(
        name="Sun",
        description="The sun's colour as the game shows it (white is raw 0x80: the game doubles vertex colours)",
        subtype="COLOR_GAMMA",
        size=3,
        min=0.0,
        max=2.0,
        default=(0.7, 0.65, 0.55),
    )
    light_sky_colour: FloatVectorProperty(
        name="Sky",
        description="The sky's colour as the game shows it: what a vertex that sees the whole sky gets from it",
        subtype="COLOR_GAMMA",
        size=3,
        min=0.0,
        max=2.0,
        default=(0.35, 0.4, 0.45),
    )
    light_occlusion: FloatProperty(
        name="Occlusion",
        description="How much the level's own geometry darkens the sky: 0 none, 1 all it hides",
        min=0.0,
        max=1.0,
        default=1.0,
    )
    light_rays: IntProperty(
        name="Sky rays",
        description="Rays each vertex sends to the sky: more is smoother and slower",
        min=1,
        max=4096,
        default=64,
    )
    light_animated: BoolProperty(
        name="Animated colours too",
        description="Also bake tiles with animated colours (more than one colour set), every set alike; off: they keep theirs",
        default=False,
    )
    light_blender_lights: BoolProperty(
        name="Blender's lights too",
        description="Also bake the scene's Sun and Point lights (colour × strength; a Point's falls off with the distance "
        "squared, up to its custom distance), where the level does not hide them",
        default=False,
    )
    light_fit: StringProperty(name="Fit", description="How well the last Fit lighting explained the level's colours")


classes = (LLAMAWAD_PG_problem, LLAMAWAD_PG_change, LLAMAWAD_PG_scene)

NO_COLLISION = {
    "name": "No collision (decoration)",
    "description": "The llama passes through this object: export gives it no collision (a tile loses its model's, "
    "a new mesh gets none made from its faces), whatever collision it has in the scene",
    "default": False,
}


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Scene.llamawad = PointerProperty(type=LLAMAWAD_PG_scene)
    bpy.types.Object.llamawad_no_collision = BoolProperty(**NO_COLLISION)


def unregister():
    del bpy.types.Object.llamawad_no_collision
    del bpy.types.Scene.llamawad
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
