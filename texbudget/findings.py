"""Every finding code texbudget emits, in one table (code, severity, meaning, what to do).

``make(path, code, message)`` is the only way findings are built, so every code used in the
code base is documented here; ``tests/unit/test_findings.py`` keeps the table and the README
in step. Ranges: TB001–TB009 discovery and general, TB010–TB019 texture policy and deep scan,
TB020–TB039 `check` limits and budgets, TB040–TB069 texture readers, TB070–TB099 glTF and
mesh readers (TB090–TB095 FBX), TB100–TB119 engine scene readers, TB120–TB129 levels.
mesh readers, TB100–TB109 Godot scenes and resources.
mesh readers, TB110–TB119 Unity scenes, prefabs, materials and the Unity project index.
"""

from __future__ import annotations

import msgspec

from texbudget.model import Finding, Severity

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


class Code(msgspec.Struct, frozen=True):
    code: str
    severity: Severity
    meaning: str
    hint: str


_TABLE: tuple[Code, ...] = (
    # --- discovery and general (TB001–TB009)
    Code("TB001", E, "The file or folder could not be read (permission, I/O error).", "Check the file's permissions, or exclude it in [scan] exclude."),
    Code("TB002", INFO, "Not a file type texbudget reads.", "Nothing to do; exclude it in [scan] exclude to silence this."),
    Code("TB003", W, "The file's content does not match its suffix (e.g. a JPEG saved as .png); it was read as what it is.", "Rename the file to its real type, or re-export it."),
    Code("TB004", W, "A symbolic link loops or leaves the scan root; it was not followed.", "Remove the link or point it inside the scan root."),
    Code("TB005", W, "The file changed or vanished while it was being scanned.", "Scan again once the files are settled."),
    Code("TB006", W, "In a scene-driven scan (glTF, Godot, Unity), a texture in the tree that no scanned material uses; it still counts in the budget.", "Delete it, move it out of the scanned folders, or exclude it in [scan] exclude if nothing loads it."),
    Code("TB007", W, "The read cache (.texbudget/cache.sqlite) was corrupt, not texbudget's or of another schema; it was rebuilt (or its bad entries dropped) and the files read again.", "Nothing to do; if it keeps happening, delete the .texbudget folder or run with --no-cache."),
    Code("TB008", E, "A Git LFS pointer stands where the file should be: its content was not fetched, so it is not priced and the totals leave it out.", "Fetch the content before scanning: `git lfs pull` (in CI, `lfs: true` on actions/checkout)."),
    Code("TB009", E, "texbudget failed on this file (an internal error); the scan went on.", "Please report it with the file attached."),
    # --- texture policy and deep scan (TB010–TB019)
    Code("TB010", W, "A Godot .import or Unity .meta beside the texture could not be read or is not one; the platform profile decided instead.", "Re-import the texture in the engine, or delete the broken sidecar."),
    Code("TB011", INFO, "The engine sidecar uses an importer texbudget does not model (a Godot 3 .import, a Unity importer other than TextureImporter); the platform profile decided.", "Nothing to do, or add a [[rule]] that states the format."),
    Code("TB012", W, "An engine import setting has a value texbudget does not understand; the engine's default or the platform profile decided that part.", "Check the value in the engine, or add a [[rule]] that states the format."),
    Code("TB013", INFO, "--deep: the alpha channel is fully opaque; a format without alpha would be cheaper.", "Export without alpha, or set the engine's alpha source to None."),
    Code("TB014", INFO, "--deep: the colour image is really greyscale; a one-channel format would be cheaper.", "Export it as a greyscale image, or pack it into a channel of a mask."),
    Code("TB015", W, "--deep: the pixels could not be decoded (unsupported, corrupt, or above Pillow's decompression-bomb limit); the texture was not inspected.", "Nothing to do, or check the file in an image editor."),
    Code("TB016", INFO, "--deep: every pixel has the same value; a 1x1 texture (or a material constant) would do.", "Replace the texture by a constant colour in the material."),
    Code("TB017", W, "A [[rule]] of the config file names no scanned texture, so it does nothing (a typo, a folder renamed or excluded, a Windows \\ between folders).", "Fix its match: a glob without / matches file names in any folder, one with / the path from the scan root, folders separated by /."),
    # --- check limits and budgets (TB020–TB039)
    Code("TB020", E, "[limits] max_bytes: the texture's GPU size (allocated) is over the limit.", "Compress it, cap its size with a [[rule]] max_size, or raise max_bytes."),
    Code("TB021", E, "[limits] max_size: the texture is larger than the limit on a side.", "Resize the source, or add a [[rule]] with max_size so the engine caps it."),
    Code("TB022", E, "[limits] forbid_uncompressed: the texture is uncompressed on the GPU (UI textures excepted).", "Let the engine compress it (e.g. Godot VRAM Compressed, Unity Compression on), or store it as BC/ASTC."),
    Code("TB023", E, "[limits] require_mips: a stored GPU texture (DDS/KTX) holds a single level.", "Re-export it with a full mip chain (texconv -m 0, toktx --genmipmap)."),
    Code("TB024", E, "[limits] multiple_of_4: a block-compressed texture's size is not a multiple of 4.", "Resize the source to a multiple of 4 (block formats pad it otherwise, and some tools refuse it)."),
    Code("TB025", E, "[limits] power_of_two: the texture's size is not a power of two.", "Resize the source to a power of two."),
    Code("TB026", E, "[limits] max_triangles: the mesh has more triangles than the limit.", "Decimate the mesh or add LODs."),
    Code("TB027", E, "[limits] max_total: the scene's total in its largest scenario is over the limit.", "Apply the fixes `texbudget scan` lists, or raise max_total."),
    Code("TB029", E, "[limits] forbid_unused: in a scene-driven scan, no material uses this texture (see TB006).", "Delete it or move it out of the scanned folders; exclude it in [scan] exclude if something else loads it."),
    Code("TB028", E, "check --baseline: the scene grew more than --max-growth (or [limits] max_growth) since the baseline report.", "Look at `texbudget diff BASE.json HEAD.json`; shrink what grew, or update the baseline."),
    # budget verdicts (TB030–TB039; texbudget/budget/assessment.py budget_findings)
    Code("TB030", E, "The scene does not fit in a card's usable VRAM in one scenario (verdict over).", "Apply the listed fixes, or drop the card, resolution or RT setting from [budget]."),
    Code("TB031", W, "The scene fits a card's usable VRAM but inside the headroom (verdict tight).", "Leave room for what the estimate misses: apply a listed fix or raise the card class."),
    Code("TB032", W, "With streaming on, the always-resident floor is larger than the streaming pool.", "Raise [budget] streaming_pool, or stream more textures (fewer never-streamed ones)."),
    # --- texture readers (TB040–TB069)
    Code("TB040", E, "The file is empty (0 bytes).", "An empty file is usually a failed save or copy; re-export it or delete it."),
    Code("TB041", E, "The file does not start with its format's signature (wrong magic), or is no image of the type its name says.", "Check that the file really is what its suffix says; re-export it."),
    Code("TB042", E, "The file ends inside its header.", "The file is cut short (a failed copy, download or export); re-export it."),
    Code("TB043", E, "The file is shorter than the pixel data its header describes, or ends before its end marker (PNG IEND, JPEG end-of-image); the message says how many bytes are missing when the header gives the length.", "The file is cut short; re-export it. Engines reject or mis-load such files."),
    Code("TB044", E, "The header gives a zero width, height or depth.", "The header is corrupt or the export failed; re-export the file."),
    Code("TB045", E, "The header gives dimensions or counts beyond any GPU's limits (more than 65536 texels on a side, or more than 65536 layers).", "The header is probably corrupt; re-export the file, or split the image."),
    Code("TB046", E, "The pixel format is unknown or not supported; the message names the code.", "Re-export in a standard format (BC1–BC7, ASTC, ETC2, RGBA8, RGBA16F, …), or report the format code."),
    Code("TB047", E, "The file claims more mip levels than its dimensions allow (floor(log2(max dim)) + 1).", "Re-export the file with a correct mip chain."),
    Code("TB048", E, "A cubemap is incomplete or malformed: fewer than six faces, a face count other than 1 or 6, or non-square faces.", "Export all six faces, square, or export a 2D texture."),
    Code("TB049", W, "A DDS DX10 header gives arraySize 0; texbudget reads it as 1 (Pillow writes such files, DirectXTex and engines built on it reject them).", "Re-export with a tool that writes arraySize 1 (texconv, NVTT, Compressonator)."),
    Code("TB050", E, "A level in the level index lies outside the file.", "The file is cut short or its level index is corrupt; re-export it."),
    Code("TB051", E, "Levels in the level index overlap each other.", "The level index is corrupt; re-export the file."),
    Code("TB052", W, "The supercompression scheme is unknown to texbudget; the texture is still reported from its header.", "Check the sizes by hand, or re-encode with a standard scheme (none, BasisLZ, Zstandard, ZLIB)."),
    Code("TB053", W, "A level's stored byte length disagrees with the size its format and dimensions give; texbudget uses the computed size.", "The writer may pad or be buggy; re-export the file with a current tool."),
    Code("TB054", E, "A header field is invalid: a wrong header size, a malformed attribute or resolution line, a data format descriptor outside the file.", "The header is corrupt or non-standard; re-export the file."),
    Code("TB055", W, "The header breaks its format's rules, but the texture could still be read.", "Re-export the file with a current tool so every engine accepts it."),
    Code("TB056", W, "Only the first part of a multi-part OpenEXR file was read.", "Sizes cover the first part only; split the parts into separate files to size each."),
    Code("TB060", INFO, "A legacy DDS pixel format no GPU has any more (P8, A8P8, R3G3B2, A8R3G3B2, A4L4, L6V5U5) is sized as the format DirectXTex expands it to on load; the file stores fewer bytes a texel.", "Nothing to do, or re-export as a DX10 DDS in the format you want on the GPU."),
    Code("TB057", W, "A KTX2 file's vkFormat is not in texbudget's format table (or is 0 with a data format descriptor texbudget does not model, no Basis Universal payload); its size comes from the file's own data format descriptor (texel block dimensions and bytesPlane0..7, checked against the level index), and the format is reported as DFD_<w>x<h>x<d>_<n>B.", "Nothing to do: the bytes are exact. texbudget cannot suggest another format for it; report the vkFormat if it should be in the table."),
    Code("TB058", E, "A KTX2 file sized from its own data format descriptor (TB057) disagrees with its level index: a level's byteLength or uncompressedByteLength is not the descriptor's block size times the level's blocks, so nothing tells which is right.", "The file is corrupt or its writer is buggy; re-export it with a current tool (ktx create, basisu), then `ktx validate` it."),
    Code("TB062", W, "An animated image (an animated WebP, an APNG) is priced as one image of its canvas size, one frame: engines import a still image (a PNG decoder shows an APNG's default image) or refuse the file (Godot's WebP importer, libwebp's still-image decoder, refuses animated WebP).", "For an animation the engine plays, export the frames as a sprite sheet or a texture array; for a still texture, export a still image."),
    # --- glTF and mesh readers (TB070–TB099)
    Code("TB070", E, "The glTF JSON could not be parsed: not JSON, not UTF-8, nested too deep, or not a JSON object.", "Re-export the file; the Khronos glTF Validator shows where it breaks."),
    Code("TB071", E, "The glTF JSON is larger than texbudget reads (64 MiB); it was not parsed.", "A JSON that size nearly always holds base64 buffers: export a .glb, or a .gltf with external .bin files."),
    Code("TB072", E, "The GLB container is broken: a wrong magic or header, a chunk length that does not match the file, or no JSON chunk.", "The file is truncated or was not written as GLB; re-export it."),
    Code("TB073", E, "The glTF breaks the glTF 2.0 schema: a field of the wrong type, a missing required field, an index that points nowhere, an unknown draw mode.", "Run the Khronos glTF Validator on the file and fix what it reports, or re-export it."),
    Code("TB074", E, "A URI leaves the scan root, is an absolute path, or uses a scheme (file:, http:, https:, …); it was not opened or fetched.", "Keep buffers and images inside the project with relative URIs, or embed them in a GLB."),
    Code("TB075", E, "A file the glTF references (a .bin buffer or an image) does not exist.", "Add the missing file, or fix the URI in the glTF."),
    Code("TB076", E, "A buffer is shorter than it declares, or a bufferView lies past the end of its buffer.", "The .bin is truncated or belongs to another export; re-export the glTF and its buffers together."),
    Code("TB077", E, "An accessor reaches past the end of its bufferView; the meshes that use it were not priced.", "The buffers do not match the JSON; re-export the file."),
    Code("TB078", E, "A count or size is beyond sane limits (an accessor count over 2^31−1, an embedded image over 256 MiB); it was not used.", "The file is corrupt or hostile; re-export it."),
    Code("TB079", E, "A data: URI is malformed (not base64, bad base64) or too large to decode.", "Re-export the file; better, use a .glb or external files instead of data URIs."),
    Code("TB080", E, "The node graph is not a tree: a node is its own ancestor (a cycle) or has two parents; the offending link was ignored.", "Fix the node hierarchy in the authoring tool and re-export."),
    Code("TB081", INFO, "An image in the glTF is used by no material (nor by an EXT_lights_image_based light a scene uses).", "Remove the image from the file if nothing needs it; it still costs download and, if loaded, VRAM."),
    Code("TB082", E, "The file is not glTF 2.x (glTF 1.0 or an unknown version); it was not read.", "Convert it to glTF 2.0 (e.g. with gltf-pipeline) and scan again."),
    Code("TB083", W, "The glTF requires an extension texbudget does not know; its sizes may be wrong.", "Check that the engine supports the extension; sizes are read from the accessor declarations."),
    Code("TB084", INFO, "A mesh is used by no node of the scene (0 instances).", "Remove the mesh if nothing uses it, or add [[instances]] in texbudget.toml when the engine places it."),
    Code("TB085", E, "The mesh file could not be read (trimesh could not parse it).", "Re-export the mesh; open it in a DCC tool to see what is wrong."),
    Code("TB086", E, "The mesh file is larger than texbudget hands to trimesh (256 MiB); it was not read.", "Export the mesh as glTF/GLB, which texbudget sizes from its declarations without loading it."),
    Code("TB087", W, "The mesh file holds no triangles (a point cloud, lines or an empty scene); nothing was priced.", "Nothing to do if that is intended."),
    Code("TB090", E, "Not an FBX file, or its header is broken: a binary header cut short, a text file with no FBX sections, a file too large to read.", "Check that the file really is FBX; re-export it from the DCC tool."),
    Code("TB091", E, "A binary FBX node record is broken: cut short, ending outside its parent or before it starts (an offset that loops back), properties past its end, an unknown property type, nesting or node count beyond texbudget's limits.", "The file is truncated or corrupt; re-export it."),
    Code("TB092", E, "An FBX array cannot be used: it lies outside its node, its zlib data does not inflate to its declared size (or claims more than zlib can hold), it is over texbudget's size limit, or its values point outside the geometry (a polygon index past the control points); the geometry that needs it was not priced.", "Re-export the mesh; open it in the DCC tool to see what is wrong."),
    Code("TB093", E, "The FBX version is one texbudget does not read (before 6.0, or 8.0 and later).", "Re-export as FBX 7.4 or later binary (FBX 2014/2015 and up), which every engine reads."),
    Code("TB094", E, "The ASCII FBX could not be parsed: an unexpected token, a string or block that is not closed, a non-number in an array, nesting too deep.", "Re-export the file (binary FBX is smaller and faster to import)."),
    Code("TB095", W, "An FBX geometry or scene part does not fit the rest: a layer element (normals, UVs, colours) shorter than its mapping needs or of an unknown mapping (that attribute was left out of the vertex layout), material indices that do not cover every polygon, a Model hierarchy that loops.", "Re-export the mesh; the engine may import it differently from what texbudget assumed."),
    # --- levels (TB120–TB129; texbudget/levels/graph.py)
    Code("TB120", E, "A level's scene or resource names a file that does not exist (or a path outside the scan root); what it would load is not priced.", "Add the missing file, or fix the reference in the engine (re-save the scene after moving files)."),
    Code("TB121", W, "A level's scene or resource names a file that could not be read; the file's own finding says why, and what it would load is not priced.", "Fix the named file (see its finding), or the reference to it."),
    Code("TB122", E, "A scene instances itself, directly or through other scenes (a cycle); the instance that closes the loop is not followed.", "Break the loop in the engine: a scene cannot contain itself."),
    Code("TB123", W, "A level names an id (Godot uid://, Unity guid) that the project index does not know; what it would load is not priced.", "Re-import the project in the engine so its .uid / .meta files are written, and commit them."),
    Code("TB124", INFO, "A level uses one of the engine's built-in resources (Unity's primitive meshes such as Cube and Quad, Default-Material); it ships with the engine whatever the level uses, and is not priced.", "Nothing to do (a few KiB each); use a mesh or material asset instead if it should be priced."),
    Code("TB125", INFO, "A Godot GridMap's cells name an item its MeshLibrary gives no mesh for (no such item, an item without a mesh, or a generated mesh such as a BoxMesh, TB105), or the GridMap has no MeshLibrary; Godot draws nothing there (or a mesh texbudget does not price), and nothing is priced for those cells.", "Erase the cells in the GridMap editor, or add the item back to the MeshLibrary (re-export it from its source scene)."),
    Code("TB088", W, "A glTF texture's source image is neither PNG nor JPEG, without the extension that allows its format (a KTX2 without KHR_texture_basisu, a WebP without EXT_texture_webp, an AVIF without EXT_texture_avif, a DDS without MSFT_texture_dds; TGA and the rest have none): glTF loaders refuse it.", "Add the extension to the texture (its source the image, the texture's own source a PNG or JPEG fallback), or convert the image to PNG or JPEG."),
    Code("TB089", W, "An EXT_lights_image_based light is not the cubemap it declares: specularImageSize is not a power of two, it lists more levels than that size has, or a face's size is not the level's; it is priced as declared (extra levels dropped).", "Re-export the environment: square power-of-two faces, each level half the one before."),
    # --- Godot scenes and resources (TB100–TB109)
    Code("TB100", E, "A Godot text scene or resource (.tscn, .tres, .escn) breaks Godot's syntax (the message gives the line), or does not start with [gd_scene] or [gd_resource]; nothing in it was read.", "Open the file in the Godot editor and save it again, or fix the line the message names (a merge conflict often leaves such lines)."),
    Code("TB101", E, "A Godot binary resource (.scn, .res, .mesh, .lmbake, .meshlib) is broken: no RSRC signature (.scn, .lmbake, .meshlib), cut short, a count, offset or value type that does not fit the file, or (compressed, RSCC) a block that does not inflate to its size; nothing in it was read.", "Re-save the resource in the Godot editor, or restore it from version control."),
    Code("TB102", W, "A Godot binary resource texbudget does not read: compressed (RSCC) with FastLZ or Brotli (or with Zstandard where the zstd module is missing), or of a format newer than Godot 4's; what it loads is not counted.", "Re-save it from Godot 4 (compressed resources use Zstandard), or as .tres/.tscn text, to have it priced; for Zstandard, install backports.zstd (Python before 3.14)."),
    Code("TB103", W, "A Godot scene or resource refers to an ExtResource or SubResource id it does not declare; Godot loads nothing there, and that reference was not followed.", "Re-save the file in the Godot editor; a hand edit or a merge probably lost the declaration."),
    Code("TB104", W, "Part of a Godot scene or resource could not be priced as declared: a mesh surface whose stored bytes disagree with its format flags (priced as stored), a surface or node table missing what it needs (not priced), a GridMap's cells that are not whole cells of integers or more than texbudget counts (not counted: Godot refuses the first too).", "Re-save the mesh or scene in the Godot editor; the message names the part."),
    Code("TB105", INFO, "A Godot scene or resource holds content generated at load time or embedded in it (procedural textures, primitive meshes, an ImageTexture's image, Godot 3 mesh data); it is not priced.", "Nothing to do if it is small; bake it to a texture or mesh file to have it priced."),
    Code("TB106", W, "A Godot scene or resource names a path that is absolute, leaves the scan root, or uses a scheme other than res:// and uid://; it was not followed.", "Use res:// paths inside the project, or scan from the project's root."),
    Code("TB107", E, "A Godot text resource is larger than texbudget reads (256 MiB), or its values nest deeper than 64; it was not read.", "Split the resource (save big meshes as their own .res), or check the file is what its name says."),
    Code("TB108", INFO, "A .mesh or .res file that is not a Godot resource (no RSRC signature: an Ogre mesh, a compiled Windows resource); it was not read.", "Nothing to do; exclude it in [scan] exclude to silence this."),
    Code("TB109", W, "The Godot project index found a problem: a project.godot, .import or .uid file it cannot read, or one uid claimed by two files.", "Re-import the project in the Godot editor (Project > Reload Current Project), or delete the stray .uid / .import file."),
    # --- Unity scenes, prefabs, materials and project (TB110–TB119)
    Code("TB110", W, "A Unity scene, prefab or material in Unity's binary serialization; texbudget reads the text (YAML) form only, so what it loads is not known.", "Set Asset Serialization to Force Text (Project Settings > Editor) and let Unity re-save the assets."),
    Code("TB111", E, "The file is not a Unity text scene, prefab or material: empty, no %YAML header, no Unity object in it, or larger than texbudget reads (512 MiB).", "Re-save it from Unity, or exclude it in [scan] exclude if it is not a Unity asset."),
    Code("TB112", W, "Some documents or references of a Unity scene, prefab or material could not be read (a malformed header or reference, a component without a GameObject, a Transform loop); they were skipped and the rest was read.", "Open and re-save the file in Unity; if it was merged by hand, check the merge."),
    Code("TB113", INFO, "Prefab instances override materials or meshes (or remove components): the overriding assets are counted as well as the prefab's own, an overestimate where nothing else uses the prefab's.", "Nothing to do; apply the overrides to a prefab variant if the estimate matters."),
    Code("TB114", INFO, "Meshes, materials or textures stored inside a Unity scene, prefab or material (ProBuilder, a script's output) are referenced but not priced.", "Save them as assets (e.g. export ProBuilder meshes) if they should be priced."),
    Code("TB115", W, "A Unity .meta file of the project could not be read or gives no guid; references to its asset cannot be resolved.", "Let Unity regenerate the .meta (delete it and reopen the project), or restore it from version control."),
    Code("TB116", W, "Two Unity .meta files give the same guid; references to it resolve to one of them (Unity itself assigns one a new guid on import).", "Delete one .meta (keep the one references were made with) and let Unity reimport."),
    Code("TB117", W, "ProjectSettings/EditorBuildSettings.asset could not be read, or a scene it lists is not in the project; that scene is not a level.", "Open File > Build Settings in Unity and fix the scene list."),
)

CODES: dict[str, Code] = {c.code: c for c in _TABLE}
def make(path: str, code: str, message: str, hint: str | None = None) -> Finding:
    """A Finding with the table's severity and (unless given) its hint."""
    entry = CODES[code]
    return Finding(path=path, code=code, severity=entry.severity, message=message, hint=entry.hint if hint is None else hint)


def table() -> tuple[Code, ...]:
    return tuple(sorted(_TABLE, key=lambda c: c.code))


def render_markdown() -> str:
    """The table for README.md (between the ``findings-table`` markers; a test keeps it equal)."""
    lines = ["| code | severity | meaning | what to do |", "|---|---|---|---|"]
    for c in table():
        lines.append(f"| {c.code} | {c.severity.value} | {c.meaning} | {c.hint} |")
    return "\n".join(lines)
