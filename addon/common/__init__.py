"""Pure Python (numpy, no bpy): our glTF read into arrays and written from them, space
conversions, and what the game's numbers mean. Tested without Blender."""
