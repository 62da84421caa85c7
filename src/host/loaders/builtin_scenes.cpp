// Built-in scenes, generated procedurally so that the library needs no data files.
#include <wavefront/error.h>
#include <wavefront/scene.h>

#include "host/loaders/loaders.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>

#include <glm/gtc/matrix_transform.hpp>

namespace wavefront {

namespace {

constexpr float kPi = 3.14159265358979323846f;

float radians(float degrees) { return degrees * kPi / 180.0f; }

std::uint32_t addVertex(TriangleMesh& mesh, const glm::vec3& p) {
    mesh.positions.push_back(p);
    return std::uint32_t(mesh.positions.size() - 1);
}

void addTriangle(TriangleMesh& mesh, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    mesh.indices.insert(mesh.indices.end(), {a, b, c});
}

// A parallelogram corner, corner + u, corner + u + v, corner + v as two triangles whose front side
// (counter-clockwise winding) faces `facing`; the edges are swapped when needed so that callers
// only have to say which way the quad should face.
void addQuad(TriangleMesh& mesh, glm::vec3 corner, glm::vec3 u, glm::vec3 v, glm::vec3 facing) {
    if (glm::dot(glm::cross(u, v), facing) < 0.0f)
        std::swap(u, v);
    std::uint32_t a = addVertex(mesh, corner);
    std::uint32_t b = addVertex(mesh, corner + u);
    std::uint32_t c = addVertex(mesh, corner + u + v);
    std::uint32_t d = addVertex(mesh, corner + v);
    addTriangle(mesh, a, b, c);
    addTriangle(mesh, a, c, d);
}

// ---- Cornell box -------------------------------------------------------------------------------
// The classic 555-unit box scaled to [0,1]^3: x to the right, y up, back wall at z = 0, open side
// at z = 1 facing the camera. Uniform scaling leaves radiance unchanged, so the classic light
// emission (17, 12, 4) keeps its meaning.

struct CornellWalls {
    int floor, ceiling, back, left, right;
};

// The five walls, each its own mesh, facing into the box.
void addCornellWalls(Scene& scene, const CornellWalls& m) {
    const glm::vec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
    auto wall = [&](int material, glm::vec3 corner, glm::vec3 u, glm::vec3 v, glm::vec3 inward) {
        TriangleMesh mesh;
        mesh.material = material;
        addQuad(mesh, corner, u, v, inward);
        scene.addMesh(mesh);
    };
    wall(m.floor, glm::vec3(0, 0, 0), x, z, y);
    wall(m.ceiling, glm::vec3(0, 1, 0), x, z, -y);
    wall(m.back, glm::vec3(0, 0, 0), x, y, z);
    wall(m.left, glm::vec3(0, 0, 0), y, z, x);
    wall(m.right, glm::vec3(1, 0, 0), y, z, -x);
}

// An sx x sz light centred just below the ceiling, facing down.
void addCeilingLight(Scene& scene, float sx, float sz, glm::vec3 emission) {
    int light = scene.addMaterial(Material::lambertian(glm::vec3(0.78f), emission));
    const float height = 1.0f - 0.002f;
    TriangleMesh mesh;
    mesh.material = light;
    addQuad(mesh, glm::vec3(0.5f - sx / 2, height, 0.5f - sz / 2), glm::vec3(sx, 0, 0), glm::vec3(0, 0, sz),
            glm::vec3(0, -1, 0));
    scene.addMesh(mesh);
}

void addCornellShell(Scene& scene, const CornellWalls& m) {
    addCornellWalls(scene, m);
    // The classic 130 x 105 light.
    addCeilingLight(scene, 130.0f / 555.0f, 105.0f / 555.0f, glm::vec3(17.0f, 12.0f, 4.0f));
}

// A box standing on the floor, rotated about y; four sides and the top (the bottom is never seen).
void addBlock(Scene& scene, int material, glm::vec2 centerXZ, glm::vec3 size, float angleDegrees) {
    const float a = radians(angleDegrees);
    const glm::vec3 ax = glm::vec3(std::cos(a), 0, -std::sin(a)) * (size.x / 2);
    const glm::vec3 az = glm::vec3(std::sin(a), 0, std::cos(a)) * (size.z / 2);
    const glm::vec3 h(0, size.y, 0);
    const glm::vec3 c(centerXZ.x, 0, centerXZ.y);
    TriangleMesh mesh;
    mesh.material = material;
    addQuad(mesh, c + ax - az, 2.0f * az, h, ax);
    addQuad(mesh, c - ax - az, 2.0f * az, h, -ax);
    addQuad(mesh, c - ax + az, 2.0f * ax, h, az);
    addQuad(mesh, c - ax - az, 2.0f * ax, h, -az);
    addQuad(mesh, c - ax - az + h, 2.0f * ax, 2.0f * az, h);
    scene.addMesh(mesh);
}

void addCornellBlocks(Scene& scene, int tallMaterial, int shortMaterial) {
    const float unit = 1.0f / 555.0f;
    addBlock(scene, tallMaterial, glm::vec2(0.337f, 0.37f), glm::vec3(165, 330, 165) * unit, 15.0f);
    addBlock(scene, shortMaterial, glm::vec2(0.665f, 0.70f), glm::vec3(165, 165, 165) * unit, -18.0f);
}

Camera cornellCamera() {
    Camera camera;
    camera.position = glm::vec3(0.5f, 0.5f, 1.0f + 800.0f / 555.0f);
    camera.target = glm::vec3(0.5f, 0.5f, 0.0f);
    camera.verticalFovDegrees = 39.3f;
    return camera;
}

// The classic materials: white, red and green walls.
CornellWalls addClassicWalls(Scene& scene, int* white) {
    *white = scene.addMaterial(Material::lambertian(glm::vec3(0.73f)));
    int red = scene.addMaterial(Material::lambertian(glm::vec3(0.65f, 0.05f, 0.05f)));
    int green = scene.addMaterial(Material::lambertian(glm::vec3(0.12f, 0.45f, 0.15f)));
    return CornellWalls{*white, *white, *white, red, green};
}

Scene cornellBox() {
    Scene scene;
    int white = 0;
    addCornellShell(scene, addClassicWalls(scene, &white));
    addCornellBlocks(scene, white, white);
    scene.setCamera(cornellCamera());
    return scene;
}

// Many lights: the Cornell box whose ceiling carries a 256 x 256 grid of small emitting quads
// (131,072 emissive triangles) in 64 emission levels spread by a hash, so the power distribution
// over the lights is far from uniform: a test and benchmark scene for light selection.
Scene manyLights() {
    Scene scene;
    int white = 0;
    addCornellShell(scene, addClassicWalls(scene, &white));
    addCornellBlocks(scene, white, white);
    int levels[64];
    for (int k = 0; k < 64; ++k) {
        float t = float(k) / 63.0f;
        glm::vec3 tint(0.6f + 0.4f * std::cos(6.0f * t), 0.6f + 0.4f * std::cos(6.0f * t + 2.1f), 0.6f + 0.4f * std::cos(6.0f * t + 4.2f));
        levels[k] = scene.addMaterial(Material::lambertian(glm::vec3(0.5f), tint * (0.5f + 40.0f * t * t * t)));
    }
    const int grid = 256;
    const float lo = 0.1f, size = 0.8f / grid, gap = 0.15f * size;
    TriangleMesh tiles[64];
    for (int k = 0; k < 64; ++k) tiles[k].material = levels[k];
    for (int j = 0; j < grid; ++j)
        for (int i = 0; i < grid; ++i) {
            std::uint32_t h = std::uint32_t(i * 73856093u) ^ std::uint32_t(j * 19349663u);
            h ^= h >> 13;
            h *= 0x5bd1e995u;
            h ^= h >> 15;
            glm::vec3 corner(lo + i * size + gap, 0.999f, lo + j * size + gap);
            addQuad(tiles[h % 64], corner, glm::vec3(size - 2 * gap, 0, 0), glm::vec3(0, 0, size - 2 * gap), glm::vec3(0, -1, 0));
        }
    for (auto& t : tiles) scene.addMesh(t);
    scene.setCamera(cornellCamera());
    return scene;
}

Scene cornellSpheres() {
    Scene scene;
    int white = 0;
    addCornellShell(scene, addClassicWalls(scene, &white));
    const float r = 0.18f;
    scene.addSphere(Sphere{glm::vec3(0.3f, r, 0.35f), r, scene.addMaterial(Material::mirror(glm::vec3(0.95f)))});
    scene.addSphere(Sphere{glm::vec3(0.7f, r, 0.65f), r, scene.addMaterial(Material::dielectric(1.5f))});
    scene.setCamera(cornellCamera());
    return scene;
}

// Depth of field: the spheres' Cornell box seen through a thin lens focused on the glass
// sphere, so the mirror sphere and the back wall blur.
Scene cornellLens() {
    Scene scene = cornellSpheres();
    Camera camera = cornellCamera();
    camera.lensRadius = 0.04f;
    camera.focusDistance = camera.position.z - 0.65f;  // the glass sphere's centre plane
    scene.setCamera(camera);
    return scene;
}

Scene cornellGlossy() {
    Scene scene;
    int walls = scene.addMaterial(Material::glossy(glm::vec3(0.45f), glm::vec3(0.25f), 30.0f));
    int floor = scene.addMaterial(Material::glossy(glm::vec3(0.4f), glm::vec3(0.4f), 50.0f));
    int red = scene.addMaterial(Material::glossy(glm::vec3(0.5f, 0.04f, 0.04f), glm::vec3(0.3f), 30.0f));
    int green = scene.addMaterial(Material::glossy(glm::vec3(0.09f, 0.35f, 0.11f), glm::vec3(0.3f), 30.0f));
    int blocks = scene.addMaterial(Material::glossy(glm::vec3(0.3f), glm::vec3(0.6f), 200.0f));
    addCornellShell(scene, CornellWalls{floor, walls, walls, red, green});
    addCornellBlocks(scene, blocks, blocks);
    scene.setCamera(cornellCamera());
    return scene;
}

// Caustics, for comparing PT, BDPT and MLT: a Cornell room lit by a small light through a glass ball.
Scene glassCaustic() {
    Scene scene;
    int white = 0;
    addCornellWalls(scene, addClassicWalls(scene, &white));
    // 0.12 x 0.12 at 40: about the classic light's power (0.0144 x 40 against 0.0443 x 12.5 in
    // luminance). The ball lens (f = nR / 2(n - 1) = 0.24 from its centre) images it near the floor.
    addCeilingLight(scene, 0.12f, 0.12f, glm::vec3(40.0f));
    scene.addSphere(Sphere{glm::vec3(0.5f, 0.55f, 0.5f), 0.16f, scene.addMaterial(Material::dielectric(1.5f))});
    addBlock(scene, white, glm::vec2(0.24f, 0.3f), glm::vec3(0.18f, 0.3f, 0.18f), 20.0f);
    scene.setCamera(cornellCamera());
    return scene;
}

// The glass-caustic room seen through a pane of glass across its open side (3 cm thick, wider
// than the view), built for VCM: the caustic on the floor is reached by camera - glass - glass -
// floor - ball - ball - light paths (E S S D S S L), specular on both sides of the one diffuse
// vertex. No connection can make them (every edge but one touches a specular vertex); BDPT and
// the path tracer find them only by hitting the small light through the ball, while merging
// at the floor takes the light subpaths' photons.
Scene causticBehindGlass() {
    Scene scene = glassCaustic();
    TriangleMesh pane;
    pane.material = scene.addMaterial(Material::dielectric(1.5f));
    const glm::vec3 lo(-0.1f, -0.1f, 1.05f), size(1.2f, 1.2f, 0.03f);
    const glm::vec3 x(size.x, 0, 0), y(0, size.y, 0), z(0, 0, size.z);
    addQuad(pane, lo, x, y, -z);
    addQuad(pane, lo + z, x, y, z);
    addQuad(pane, lo, x, z, -y);
    addQuad(pane, lo + y, x, z, y);
    addQuad(pane, lo, y, z, -x);
    addQuad(pane, lo + x, y, z, x);
    scene.addMesh(pane);
    return scene;
}

// A caustic seen only in a mirror, built for MLT: the glass-caustic room (a small light focused
// near the floor by a glass ball) with a mirror for a ceiling, and a camera outside the room's
// open side, just above the floor, looking up at the mirror, so that the floor and its caustic
// appear only in the mirror. The caustic's paths are camera - mirror - floor - glass - glass -
// light (ES DS S L): no connection can reach them (every edge but the first ends on a specular
// vertex or on the light), so only eye paths that hit the small light after the ball find them,
// the path tracer's and BDPT's s = 0 strategy alike. A Metropolis chain that finds one explores
// its neighbours. The floor and the mirror reach out past the open side so that the mirror shows
// floor wherever the camera looks.
Scene mirrorCaustic() {
    Scene scene;
    int white = 0;
    CornellWalls walls = addClassicWalls(scene, &white);
    int mirror = scene.addMaterial(Material::mirror(glm::vec3(0.95f)));
    const glm::vec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
    const float reach = 1.6f;  // the floor and the mirror run from the back wall to z = 1.6
    auto quad = [&](int material, glm::vec3 corner, glm::vec3 u, glm::vec3 v, glm::vec3 facing) {
        TriangleMesh mesh;
        mesh.material = material;
        addQuad(mesh, corner, u, v, facing);
        scene.addMesh(mesh);
    };
    quad(walls.floor, glm::vec3(0, 0, 0), x, reach * z, y);
    quad(mirror, glm::vec3(0, 1, 0), x, reach * z, -y);
    quad(walls.back, glm::vec3(0, 0, 0), x, y, z);
    quad(walls.left, glm::vec3(0, 0, 0), y, z, x);
    quad(walls.right, glm::vec3(1, 0, 0), y, z, -x);
    addCeilingLight(scene, 0.12f, 0.12f, glm::vec3(40.0f));
    scene.addSphere(Sphere{glm::vec3(0.5f, 0.55f, 0.5f), 0.16f, scene.addMaterial(Material::dielectric(1.5f))});
    addBlock(scene, white, glm::vec2(0.24f, 0.3f), glm::vec3(0.18f, 0.3f, 0.18f), 20.0f);
    // Aimed at the caustic's mirror image (0.5, 2, 0.5), from far enough out that the reflected
    // view of the caustic passes beside the ball; the lowest ray climbs at about 40 degrees.
    Camera camera;
    camera.position = glm::vec3(0.5f, 0.05f, 1.45f);
    camera.target = glm::vec3(0.5f, 2.0f, 0.45f);
    camera.verticalFovDegrees = 45.0f;
    scene.setCamera(camera);
    return scene;
}

// Door ajar (after Veach): hard visibility. One closed 1 x 1 x 2.1 box, split at z = 0 by a wall
// with a 0.3 x 0.7 doorway whose door is opened 8 degrees into the dark far room (z < 0), leaving a
// wedge-shaped gap about 0.04 wide at its free edge. The only light is on the far room's ceiling;
// the camera, in the near room (z > 0), sits above the doorway's top (y = 0.85 > 0.7), so every
// camera ray that gets through the doorway heads down and can never see the light: the near room
// is lit only by light that came through the gap.
Scene doorAjar() {
    Scene scene;
    int white = scene.addMaterial(Material::lambertian(glm::vec3(0.75f)));
    const glm::vec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
    const float farEnd = -0.6f, nearEnd = 1.5f, length = nearEnd - farEnd;
    TriangleMesh walls;
    walls.material = white;
    // The shell: floor, ceiling and side walls run the length of both rooms.
    addQuad(walls, glm::vec3(0, 0, farEnd), x, length * z, y);
    addQuad(walls, glm::vec3(0, 1, farEnd), x, length * z, -y);
    addQuad(walls, glm::vec3(0, 0, farEnd), y, length * z, x);
    addQuad(walls, glm::vec3(1, 0, farEnd), y, length * z, -x);
    addQuad(walls, glm::vec3(0, 0, farEnd), x, y, z);
    addQuad(walls, glm::vec3(0, 0, nearEnd), x, y, -z);
    // The dividing wall at z = 0: both sides of the doorway, and one lintel strip across the
    // whole width above it, so the only seams are below the camera's height.
    const float doorLeft = 0.55f, doorRight = 0.85f, doorTop = 0.7f;
    addQuad(walls, glm::vec3(0, 0, 0), doorLeft * x, doorTop * y, z);
    addQuad(walls, glm::vec3(doorRight, 0, 0), (1.0f - doorRight) * x, doorTop * y, z);
    addQuad(walls, glm::vec3(0, doorTop, 0), x, (1.0f - doorTop) * y, z);
    // The door: hinged at the doorway's left edge, turned 8 degrees into the far room.
    const float a = radians(8.0f), width = doorRight - doorLeft;
    addQuad(walls, glm::vec3(doorLeft, 0, 0), width * glm::vec3(std::cos(a), 0, -std::sin(a)), doorTop * y, z);
    // The head of the door frame, a strip the door swings under: it closes the top of the wedge
    // between the door and the doorway, so that the gap at the free edge is the only way through.
    addQuad(walls, glm::vec3(doorLeft, doorTop, -0.06f), width * x, 0.06f * z, -y);
    scene.addMesh(walls);
    // Something in the near room for the light to fall on.
    addBlock(scene, white, glm::vec2(0.3f, 0.75f), glm::vec3(0.2f, 0.35f, 0.2f), 25.0f);

    int light = scene.addMaterial(Material::lambertian(glm::vec3(0.78f), glm::vec3(100.0f)));
    TriangleMesh lamp;
    lamp.material = light;
    addQuad(lamp, glm::vec3(0.15f, 0.998f, -0.5f), 0.7f * x, 0.4f * z, -y);
    scene.addMesh(lamp);

    Camera camera;
    camera.position = glm::vec3(0.5f, 0.85f, 1.45f);
    camera.target = glm::vec3(0.6f, 0.3f, 0.0f);
    camera.verticalFovDegrees = 55.0f;
    scene.setCamera(camera);
    return scene;
}

// ---- Tessellated spheres -----------------------------------------------------------------------

// Latitude-longitude sphere: `rings` bands from the north pole (theta = 0, +y) to the south pole,
// `segments` around, one vertex per pole and no duplicated seam, so no triangle is degenerate.
// `point(theta, phi)` places the vertices; `inward` flips the winding so the front faces the centre.
TriangleMesh latLongSphere(int rings, int segments, const std::function<glm::vec3(float, float)>& point,
                           bool inward) {
    TriangleMesh mesh;
    mesh.positions.reserve(std::size_t(rings - 1) * segments + 2);
    mesh.indices.reserve(std::size_t(rings - 1) * segments * 6);
    const std::uint32_t north = addVertex(mesh, point(0.0f, 0.0f));
    for (int i = 1; i < rings; ++i) {
        float theta = kPi * float(i) / float(rings);
        for (int j = 0; j < segments; ++j)
            addVertex(mesh, point(theta, 2.0f * kPi * float(j) / float(segments)));
    }
    const std::uint32_t south = addVertex(mesh, point(kPi, 0.0f));

    auto ringVertex = [&](int i, int j) { return std::uint32_t(1 + (i - 1) * segments + j % segments); };
    // With theta growing southwards and phi eastwards, (a, b, c) = (phi step, then theta step)
    // winds counter-clockwise seen from outside.
    auto emit = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
        if (inward)
            addTriangle(mesh, a, c, b);
        else
            addTriangle(mesh, a, b, c);
    };
    for (int j = 0; j < segments; ++j) {
        emit(north, ringVertex(1, j + 1), ringVertex(1, j));
        for (int i = 1; i + 1 < rings; ++i) {
            std::uint32_t a = ringVertex(i, j), b = ringVertex(i, j + 1);
            std::uint32_t c = ringVertex(i + 1, j + 1), d = ringVertex(i + 1, j);
            emit(a, b, c);
            emit(a, c, d);
        }
        emit(ringVertex(rings - 1, j), ringVertex(rings - 1, j + 1), south);
    }
    return mesh;
}

glm::vec3 sphericalDirection(float theta, float phi) {
    return glm::vec3(std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi));
}

// Smooth vertex normals: the area-weighted average of the adjacent face normals.
void computeVertexNormals(TriangleMesh& mesh) {
    mesh.normals.assign(mesh.positions.size(), glm::vec3(0.0f));
    for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        std::uint32_t a = mesh.indices[t], b = mesh.indices[t + 1], c = mesh.indices[t + 2];
        glm::vec3 n = glm::cross(mesh.positions[b] - mesh.positions[a], mesh.positions[c] - mesh.positions[a]);
        mesh.normals[a] += n;
        mesh.normals[b] += n;
        mesh.normals[c] += n;
    }
    for (glm::vec3& n : mesh.normals)
        n = glm::normalize(n);
}

Scene mesh1m() {
    Scene scene;
    int white = 0;
    addCornellShell(scene, addClassicWalls(scene, &white));
    // A bumpy ball: two layers of ripples, functions of the direction (not of theta and phi) so
    // that they stay smooth at the poles; slopes stay below about 1 so no face turns away.
    const glm::vec3 center(0.5f, 0.36f, 0.5f);
    const float radius = 0.3f;
    auto point = [&](float theta, float phi) {
        glm::vec3 d = sphericalDirection(theta, phi);
        float bump = 0.06f * std::sin(9.0f * d.x) * std::sin(9.0f * d.y + 1.0f) * std::sin(9.0f * d.z + 2.0f) +
                     0.012f * std::sin(37.0f * d.x + 1.3f) * std::sin(41.0f * d.y) * std::sin(43.0f * d.z + 0.7f);
        return center + radius * (1.0f + bump) * d;
    };
    // 500 x 1000 gives 998,000 triangles.
    TriangleMesh mesh = latLongSphere(500, 1000, point, false);
    computeVertexNormals(mesh);
    mesh.material = scene.addMaterial(Material::lambertian(glm::vec3(0.7f)));
    scene.addMesh(mesh);
    scene.setCamera(cornellCamera());
    return scene;
}

// ---- Analytic test scenes ------------------------------------------------------------------------

Camera cameraAtOriginLookingDownZ() {
    Camera camera;
    camera.position = glm::vec3(0.0f);
    camera.target = glm::vec3(0.0f, 0.0f, -1.0f);
    camera.verticalFovDegrees = 60.0f;
    return camera;
}

// White furnace: a closed cube, every face emitting Le = 1 with albedo a = 0.5, seen from inside.
// The radiance everywhere is Le / (1 - a) = 2.
Scene furnace() {
    Scene scene;
    TriangleMesh mesh;
    mesh.material = scene.addMaterial(Material::lambertian(glm::vec3(0.5f), glm::vec3(1.0f)));
    const glm::vec3 x(2, 0, 0), y(0, 2, 0), z(0, 0, 2), lo(-1.0f), hi(1.0f);
    addQuad(mesh, lo, y, z, x);
    addQuad(mesh, glm::vec3(hi.x, lo.y, lo.z), y, z, -x);
    addQuad(mesh, lo, x, z, y);
    addQuad(mesh, glm::vec3(lo.x, hi.y, lo.z), x, z, -y);
    addQuad(mesh, lo, x, y, z);
    addQuad(mesh, glm::vec3(lo.x, lo.y, hi.z), x, y, -z);
    scene.addMesh(mesh);
    scene.setCamera(cameraAtOriginLookingDownZ());
    return scene;
}

// The inside of a unit sphere (tessellated, facing inward) with albedo 0.7 and emission 0.5:
// the radiance everywhere is 0.5 / (1 - 0.7) = 5/3. Our Sphere primitive only emits outwards,
// hence the triangles.
Scene sphereInside() {
    Scene scene;
    TriangleMesh mesh = latLongSphere(64, 128, sphericalDirection, true);
    mesh.normals.reserve(mesh.positions.size());
    for (const glm::vec3& p : mesh.positions)
        mesh.normals.push_back(-glm::normalize(p));
    mesh.material = scene.addMaterial(Material::lambertian(glm::vec3(0.7f), glm::vec3(0.5f)));
    scene.addMesh(mesh);
    scene.setCamera(cameraAtOriginLookingDownZ());
    return scene;
}

// ---- "Ray Tracing in One Weekend", final scene -------------------------------------------------
// Rebuilt exactly as the hand-tuned CUDA megakernel of issue 15 builds it (Karim Sayed,
// github.com/karimsayedre/CUDA-Ray-Tracing-In-One-Weekend: src/Raytracing.h CreateWorld,
// src/Random.h, src/Renderer.h for the camera), so that both render the same 488 spheres; the
// parameters and what differs are in docs/decisions.md ("The RTIOW scene of issue 15").

// Its sphere-placing generator: a 32-bit LCG (Numerical Recipes' constants) seeded with a PCG
// hash of 134537; a float is the low 24 bits of the new state over 2^24.
class RtiowRng {
public:
    RtiowRng() : state_(pcgHash(134537u)) {}
    float next() {
        state_ = 1664525u * state_ + 1013904223u;
        return float(state_ & 0x00FFFFFFu) / 16777216.0f;
    }

private:
    static std::uint32_t pcgHash(std::uint32_t input) {
        std::uint32_t state = input * 747796405u + 2891336453u;
        std::uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
        return (word >> 22u) ^ word;
    }
    std::uint32_t state_;
};

// Its fuzz f perturbs the mirror direction by f times a random offset; our rough metal is the GGX
// conductor, at the roughness that spreads the reflection about as much (scene.h, decisions.md).
constexpr float kRtiowFuzzToRoughness = 0.3f;

Scene rtiowFinal() {
    Scene scene;
    scene.addSphere(Sphere{glm::vec3(0.0f, -1000.0f, -1.0f), 1000.0f,
                           scene.addMaterial(Material::lambertian(glm::vec3(0.5f)))});
    RtiowRng rng;
    for (int a = -11; a < 11; ++a) {
        for (int b = -11; b < 11; ++b) {
            // One draw each, in this order: the material choice, the two offsets, then the material's.
            float choice = rng.next();
            float offX = rng.next(), offZ = rng.next();
            glm::vec3 center(float(a) + offX, 0.2f, float(b) + offZ);
            Material material;
            if (choice < 0.8f) {
                float r = rng.next(), g = rng.next(), bl = rng.next();
                material = Material::lambertian(glm::vec3(r * r, g * g, bl * bl));
            } else if (choice < 0.95f) {
                float r = rng.next(), g = rng.next(), bl = rng.next();
                glm::vec3 tint = 0.5f * (glm::vec3(1.0f) + glm::vec3(r, g, bl));
                float fuzz = 0.5f * rng.next();
                material = Material::conductor(tint, kRtiowFuzzToRoughness * fuzz);
            } else {
                material = Material::dielectric(1.5f);
            }
            scene.addSphere(Sphere{center, 0.2f, scene.addMaterial(material)});
        }
    }
    scene.addSphere(Sphere{glm::vec3(0, 1, 0), 1.0f, scene.addMaterial(Material::dielectric(1.5f))});
    scene.addSphere(Sphere{glm::vec3(-4, 1, 0), 1.0f,
                           scene.addMaterial(Material::lambertian(glm::vec3(0.4f, 0.2f, 0.1f)))});
    scene.addSphere(Sphere{glm::vec3(4, 1, 0), 1.0f,
                           scene.addMaterial(Material::conductor(glm::vec3(0.7f, 0.6f, 0.5f), 0.0f))});
    scene.setSkyGradient(SkyGradient{glm::vec3(1.0f), glm::vec3(0.5f, 0.7f, 1.0f)});

    // A pinhole camera; the aspect ratio is the image's.
    Camera camera;
    camera.position = glm::vec3(13, 2, 3);
    camera.target = glm::vec3(0, 0, 0);
    camera.up = glm::vec3(0, 1, 0);
    camera.verticalFovDegrees = 20.0f;
    scene.setCamera(camera);
    return scene;
}

// An HDR sky as a latitude-longitude image (y up, top row the zenith): a gradient from a warm
// horizon to a blue zenith, a darker ground below the horizon, and a sun disk about 2000 times
// brighter than the sky, so that most of the light comes from a few hundred texels.
Image hdrSky(int width, int height, glm::vec3 sunDirection, float sunAngularRadiusDegrees, glm::vec3 sunRadiance) {
    Image sky(width, height);
    const glm::vec3 zenith(0.25f, 0.45f, 0.95f), horizon(1.0f, 0.9f, 0.75f), ground(0.18f, 0.16f, 0.14f);
    const glm::vec3 sun = glm::normalize(sunDirection);
    const float cosSun = std::cos(radians(sunAngularRadiusDegrees));
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            // The texel centre's direction, as EnvironmentView::direction maps it.
            float phi = 2.0f * kPi * (x + 0.5f) / width, theta = kPi * (y + 0.5f) / height;
            glm::vec3 d(std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi));
            glm::vec3 L = d.y >= 0.0f ? glm::mix(horizon, zenith, std::sqrt(d.y)) : ground;
            if (glm::dot(d, sun) >= cosSun) L += sunRadiance;
            float* px = sky.pixel(x, y);
            px[0] = L.x, px[1] = L.y, px[2] = L.z;
        }
    return sky;
}

// A UV sphere of triangles with smooth vertex normals: few enough facets that the shading normals
// differ from the geometric ones by up to about 11 degrees.
TriangleMesh smoothSphereMesh(glm::vec3 centre, float radius, int rings, int segments, int material) {
    TriangleMesh mesh;
    mesh.material = material;
    for (int i = 0; i <= rings; ++i)
        for (int j = 0; j <= segments; ++j) {
            float theta = kPi * float(i) / rings, phi = 2.0f * kPi * float(j) / segments;
            glm::vec3 n(std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi));
            mesh.positions.push_back(centre + radius * n);
            mesh.normals.push_back(n);
        }
    auto at = [&](int i, int j) { return std::uint32_t(i * (segments + 1) + j); };
    for (int i = 0; i < rings; ++i)
        for (int j = 0; j < segments; ++j) {
            // Counter-clockwise seen from outside.
            if (i > 0) addTriangle(mesh, at(i, j), at(i, j + 1), at(i + 1, j));
            if (i + 1 < rings) addTriangle(mesh, at(i, j + 1), at(i + 1, j + 1), at(i + 1, j));
        }
    return mesh;
}

// Lit only by an HDR sky with a sun: rough gold, rough glass, a glTF-style red plastic, brushed
// aluminium (complex index) and a low-poly smooth-shaded sphere, on a rough metallic-roughness
// floor. Every integrator renders it (issue "One scene, three integrators").
Scene hdrSpheres() {
    Scene scene;
    TriangleMesh floor;
    floor.material = scene.addMaterial(Material::metallicRoughness(glm::vec3(0.45f, 0.42f, 0.38f), 0.0f, 0.6f));
    addQuad(floor, glm::vec3(-20.0f, 0.0f, -20.0f), glm::vec3(40.0f, 0.0f, 0.0f), glm::vec3(0.0f, 0.0f, 40.0f), glm::vec3(0, 1, 0));
    scene.addMesh(floor);
    const float r = 0.5f;
    scene.addSphere(Sphere{glm::vec3(-1.65f, r, 0.0f), r,
                           scene.addMaterial(Material::conductorIor(glm::vec3(0.18f, 0.42f, 1.37f),
                                                                    glm::vec3(3.42f, 2.35f, 1.77f), 0.25f))});
    scene.addSphere(Sphere{glm::vec3(-0.55f, r, 0.35f), r, scene.addMaterial(Material::roughDielectric(1.5f, 0.15f))});
    scene.addSphere(Sphere{glm::vec3(0.55f, r, 0.0f), r,
                           scene.addMaterial(Material::metallicRoughness(glm::vec3(0.7f, 0.08f, 0.06f), 0.0f, 0.35f))});
    scene.addSphere(Sphere{glm::vec3(1.65f, r, 0.35f), r,
                           scene.addMaterial(Material::conductorIor(glm::vec3(1.66f, 0.88f, 0.52f),
                                                                    glm::vec3(9.22f, 6.27f, 4.84f), 0.08f))});
    scene.addMesh(smoothSphereMesh(glm::vec3(0.0f, 0.3f, 1.3f), 0.3f, 8, 16,
                                   scene.addMaterial(Material::lambertian(glm::vec3(0.2f, 0.5f, 0.8f)))));
    scene.setEnvironment(hdrSky(512, 256, glm::vec3(0.5f, 0.55f, 0.35f), 2.5f, glm::vec3(1200.0f, 1000.0f, 800.0f)));
    Camera camera;
    camera.position = glm::vec3(0.0f, 1.6f, 5.2f);
    camera.target = glm::vec3(0.0f, 0.45f, 0.0f);
    camera.verticalFovDegrees = 32.0f;
    scene.setCamera(camera);
    return scene;
}

// A corner of a room (floor, back wall, a red side wall) with three balls (diffuse, rough gold,
// rough glass), lit by one light without extent: the scenes of point, spot and directional lights.
Scene lightStudio(const Light& light) {
    Scene scene;
    const int white = scene.addMaterial(Material::lambertian(glm::vec3(0.7f)));
    TriangleMesh walls;
    walls.material = white;
    addQuad(walls, glm::vec3(-3.0f, 0.0f, -3.0f), glm::vec3(6.0f, 0.0f, 0.0f), glm::vec3(0.0f, 0.0f, 6.0f), glm::vec3(0, 1, 0));
    addQuad(walls, glm::vec3(-3.0f, 0.0f, -3.0f), glm::vec3(6.0f, 0.0f, 0.0f), glm::vec3(0.0f, 3.0f, 0.0f), glm::vec3(0, 0, 1));
    scene.addMesh(walls);
    TriangleMesh side;
    side.material = scene.addMaterial(Material::lambertian(glm::vec3(0.7f, 0.2f, 0.15f)));
    addQuad(side, glm::vec3(-3.0f, 0.0f, -3.0f), glm::vec3(0.0f, 0.0f, 6.0f), glm::vec3(0.0f, 3.0f, 0.0f), glm::vec3(1, 0, 0));
    scene.addMesh(side);
    scene.addSphere({glm::vec3(-1.2f, 0.6f, 0.0f), 0.6f, white});
    scene.addSphere({glm::vec3(0.2f, 0.6f, -0.8f), 0.6f, scene.addMaterial(Material::conductor(glm::vec3(0.9f, 0.7f, 0.4f), 0.3f))});
    scene.addSphere({glm::vec3(1.3f, 0.5f, 0.6f), 0.5f, scene.addMaterial(Material::roughDielectric(1.5f, 0.2f))});
    scene.addLight(light);
    Camera camera;
    camera.position = glm::vec3(0.0f, 1.6f, 6.0f);
    camera.target = glm::vec3(0.0f, 0.8f, 0.0f);
    camera.verticalFovDegrees = 45.0f;
    scene.setCamera(camera);
    return scene;
}

Scene pointLight() { return lightStudio(Light::point(glm::vec3(0.5f, 2.5f, 1.5f), glm::vec3(6.0f))); }
Scene spotLight() {
    return lightStudio(Light::spot(glm::vec3(0.0f, 2.8f, 2.0f), glm::vec3(0.0f, -1.0f, -0.7f), glm::vec3(15.0f), 15.0f, 35.0f));
}
Scene sunLight() { return lightStudio(Light::directional(glm::vec3(-0.4f, -1.0f, -0.5f), glm::vec3(2.0f))); }

// ---- Participating media --------------------------------------------------------------------------
// Rooms filled with a medium: an Interface box just around the Cornell room (its open side at
// z = 1 included) holds it, so that camera rays enter it there; the walls inside bound nothing
// and keep the medium on both sides (pbrt-v4's rule).

/// The closed box [lo, hi] as an interface with `inside` within and vacuum around it.
void addMediumBox(Scene& scene, glm::vec3 lo, glm::vec3 hi, int inside) {
    TriangleMesh box;
    box.material = scene.addMaterial(Material::interface());
    box.mediumInside = inside;
    box.mediumOutside = kVacuum;
    const glm::vec3 s = hi - lo, x(s.x, 0, 0), y(0, s.y, 0), z(0, 0, s.z);
    addQuad(box, lo, x, y, glm::vec3(0, 0, -1));
    addQuad(box, lo + z, x, y, glm::vec3(0, 0, 1));
    addQuad(box, lo, x, z, glm::vec3(0, -1, 0));
    addQuad(box, lo + y, x, z, glm::vec3(0, 1, 0));
    addQuad(box, lo, y, z, glm::vec3(-1, 0, 0));
    addQuad(box, lo + x, y, z, glm::vec3(1, 0, 0));
    scene.addMesh(box);
}

/// The Cornell room's medium box: just around its walls, its front at the open side.
void addRoomMedium(Scene& scene, int medium) {
    addMediumBox(scene, glm::vec3(-0.01f, -0.01f, -0.01f), glm::vec3(1.01f, 1.01f, 1.0f), medium);
}

// The Cornell box in thin fog (mean free path 2.5 rooms, albedo 0.8), lit by a spot light under
// the ceiling: the light's cone stands in the fog.
Scene cornellFog() {
    Scene scene;
    int white = 0;
    addCornellWalls(scene, addClassicWalls(scene, &white));
    addCornellBlocks(scene, white, white);
    const int fog = scene.addMedium(Medium::homogeneous(glm::vec3(0.08f), glm::vec3(0.32f), 0.3f));
    addRoomMedium(scene, fog);
    Light spot = Light::spot(glm::vec3(0.5f, 0.97f, 0.45f), glm::vec3(0.05f, -1.0f, 0.1f), glm::vec3(3.0f), 12.0f, 22.0f);
    spot.medium = fog;
    scene.addLight(spot);
    scene.setCamera(cornellCamera());
    return scene;
}

// Glass focusing light into fog: the glass-caustic room (a small light above a glass ball) filled
// with fog; the ball's focused cone of light shows in the fog below it. The light emits into the
// fog, the ball holds vacuum (its surface bounds the fog).
Scene volumetricCaustic() {
    Scene scene;
    int white = 0;
    addCornellWalls(scene, addClassicWalls(scene, &white));
    const int fog = scene.addMedium(Medium::homogeneous(glm::vec3(0.02f), glm::vec3(0.8f), 0.2f));
    addRoomMedium(scene, fog);
    // 0.08 x 0.08 at 90: the glass-caustic room's light power in a smaller, sharper source.
    int light = scene.addMaterial(Material::lambertian(glm::vec3(0.78f), glm::vec3(90.0f)));
    TriangleMesh lightMesh;
    lightMesh.material = light;
    lightMesh.mediumInside = lightMesh.mediumOutside = fog;  // emits into the fog
    addQuad(lightMesh, glm::vec3(0.46f, 0.998f, 0.46f), glm::vec3(0.08f, 0, 0), glm::vec3(0, 0, 0.08f), glm::vec3(0, -1, 0));
    scene.addMesh(lightMesh);
    Sphere ball{glm::vec3(0.5f, 0.55f, 0.5f), 0.16f, scene.addMaterial(Material::dielectric(1.5f))};
    ball.mediumInside = kVacuum;
    ball.mediumOutside = fog;
    scene.addSphere(ball);
    scene.setCamera(cornellCamera());
    return scene;
}

/// A smoke plume's density on an n^3 grid: three soft blobs rising from the floor, broken up by a
/// few octaves of hashed value noise (the same on every machine), 0 at the grid's faces.
std::vector<float> smokeDensity(int n) {
    auto hash = [](int x, int y, int z) {
        std::uint32_t h = std::uint32_t(x) * 0x9E3779B1u ^ std::uint32_t(y) * 0x85EBCA77u ^ std::uint32_t(z) * 0xC2B2AE3Du;
        h ^= h >> 15;
        h *= 0x2C1B3C6Du;
        h ^= h >> 12;
        return float(h & 0xffffff) / float(0x1000000);
    };
    auto noise = [&](glm::vec3 p) {  // trilinear value noise
        glm::vec3 f = glm::floor(p), t = p - f;
        int x = int(f.x), y = int(f.y), z = int(f.z);
        float v = 0.0f;
        for (int c = 0; c < 8; ++c) {
            int dx = c & 1, dy = (c >> 1) & 1, dz = c >> 2;
            v += hash(x + dx, y + dy, z + dz) * (dx ? t.x : 1 - t.x) * (dy ? t.y : 1 - t.y) * (dz ? t.z : 1 - t.z);
        }
        return v;
    };
    const glm::vec3 blobs[3] = {{0.5f, 0.35f, 0.5f}, {0.4f, 0.6f, 0.45f}, {0.58f, 0.78f, 0.55f}};
    const float radii[3] = {0.22f, 0.18f, 0.14f};
    std::vector<float> d(std::size_t(n) * n * n);
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                glm::vec3 p = (glm::vec3(i, j, k) + 0.5f) / float(n);
                float shape = 0.0f;
                for (int b = 0; b < 3; ++b) {
                    float r = glm::length(p - blobs[b]) / radii[b];
                    shape = std::max(shape, 1.0f - r * r);
                }
                float turbulence = 0.5f * noise(p * 6.0f) + 0.3f * noise(p * 13.0f) + 0.2f * noise(p * 27.0f);
                d[(std::size_t(k) * n + j) * n + i] = std::max(0.0f, shape * 1.6f - 0.6f * turbulence);
            }
    return d;
}

// A plume of smoke (a 64^3 density grid, albedo 0.93, slightly forward scattering) in the
// Cornell box under its ceiling light; an Interface box around the grid holds it.
Scene smokeBox() {
    Scene scene;
    int white = 0;
    addCornellShell(scene, addClassicWalls(scene, &white));
    const int n = 64;
    const glm::vec3 lo(0.2f, 0.0f, 0.2f), hi(0.8f, 0.85f, 0.8f);
    Medium smoke = Medium::grid(glm::vec3(2.0f), glm::vec3(28.0f), 0.3f, n, n, n, smokeDensity(n), lo, hi);
    const int medium = scene.addMedium(smoke);
    addMediumBox(scene, lo + glm::vec3(0.0f, 0.001f, 0.0f), hi, medium);
    scene.setCamera(cornellCamera());
    return scene;
}

// ---- Instancing ---------------------------------------------------------------------------------
// A forest: 10,000 copies of one tree (a trunk and a smooth crown in two meshes) placed by turns,
// scales and mirror images on a jittered grid, under a sky and a sun. The crown is a sphere
// stretched by the placement, so its normals go through the instances' normal transform.

/// A uniform number in [0, 1) from (i, j, k): the placements' jitter, the same on every machine.
float placementHash(std::uint32_t i, std::uint32_t j, std::uint32_t k) {
    std::uint32_t h = i * 0x9E3779B1u ^ (j + 0x7F4A7C15u) * 0x85EBCA77u ^ (k + 1u) * 0xC2B2AE3Du;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return float(h >> 8) / 16777216.0f;
}

Scene forest() {
    Scene scene;
    TriangleMesh ground;
    ground.material = scene.addMaterial(Material::lambertian(glm::vec3(0.30f, 0.38f, 0.16f)));
    addQuad(ground, glm::vec3(-60.0f, 0.0f, -60.0f), glm::vec3(120.0f, 0.0f, 0.0f), glm::vec3(0.0f, 0.0f, 120.0f),
            glm::vec3(0, 1, 0));
    scene.addMesh(ground);
    TriangleMesh trunk;
    trunk.material = scene.addMaterial(Material::lambertian(glm::vec3(0.30f, 0.20f, 0.12f)));
    const int sides = 6;
    for (int k = 0; k < sides; ++k) {
        const float a0 = 2.0f * kPi * k / sides, a1 = 2.0f * kPi * (k + 1) / sides;
        const glm::vec3 p0(0.08f * std::cos(a0), 0.0f, 0.08f * std::sin(a0)), p1(0.08f * std::cos(a1), 0.0f, 0.08f * std::sin(a1));
        addQuad(trunk, p0, p1 - p0, glm::vec3(0.0f, 0.8f, 0.0f), 0.5f * (p0 + p1));
    }
    const TriangleMesh crown = smoothSphereMesh(glm::vec3(0.0f, 1.4f, 0.0f), 0.7f, 16, 40,
                                                scene.addMaterial(Material::lambertian(glm::vec3(0.12f, 0.36f, 0.10f))));
    const int tree = scene.addObject({trunk, crown});
    const int rows = 100;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < rows; ++j) {
            const float x = -50.0f + (i + 0.2f + 0.6f * placementHash(i, j, 0));
            const float z = -50.0f + (j + 0.2f + 0.6f * placementHash(i, j, 1));
            const float size = 0.6f + 0.6f * placementHash(i, j, 2), stretch = 1.0f + 0.6f * placementHash(i, j, 3);
            const float mirror = placementHash(i, j, 4) < 0.5f ? -1.0f : 1.0f;
            glm::mat4 m = glm::translate(glm::mat4(1.0f), glm::vec3(x, 0.0f, z));
            m = glm::rotate(m, 2.0f * kPi * placementHash(i, j, 5), glm::vec3(0, 1, 0));
            scene.addInstance(tree, glm::scale(m, glm::vec3(mirror * size, stretch * size, size)));
        }
    scene.setSkyGradient(SkyGradient{glm::vec3(0.35f), glm::vec3(0.45f, 0.6f, 0.9f)});
    scene.addLight(Light::directional(glm::vec3(-0.5f, -0.8f, -0.35f), glm::vec3(2.5f, 2.3f, 2.0f)));
    Camera camera;
    camera.position = glm::vec3(0.0f, 7.0f, 56.0f);
    camera.target = glm::vec3(0.0f, 0.0f, 20.0f);
    camera.verticalFovDegrees = 45.0f;
    scene.setCamera(camera);
    return scene;
}

struct BuiltinScene {
    const char* name;
    Scene (*build)();
};

const BuiltinScene kBuiltinScenes[] = {
    {"cornell-box", cornellBox},   {"cornell-spheres", cornellSpheres}, {"cornell-glossy", cornellGlossy},
    {"rtiow-final", rtiowFinal},   {"mesh-1m", mesh1m},                 {"furnace", furnace},
    {"sphere-inside", sphereInside}, {"many-lights", manyLights},   {"glass-caustic", glassCaustic},
    {"door-ajar", doorAjar},       {"mirror-caustic", mirrorCaustic}, {"caustic-behind-glass", causticBehindGlass},       {"cornell-lens", cornellLens},       {"hdr-spheres", hdrSpheres},
    {"point-light", pointLight},   {"spot-light", spotLight},           {"sun-light", sunLight},
    {"forest", forest},
    {"cornell-fog", cornellFog}, {"volumetric-caustic", volumetricCaustic}, {"smoke-box", smokeBox},
};

}  // namespace

Scene Scene::builtin(const std::string& name) {
    for (const BuiltinScene& scene : kBuiltinScenes)
        if (name == scene.name)
            return scene.build();
    std::string list;
    for (const BuiltinScene& scene : kBuiltinScenes)
        list += std::string(list.empty() ? "" : ", ") + scene.name;
    throw InputError("unknown scene '" + name + "'; built-in scenes: " + list + " or a path to a scene file (" + readableExtensions() + ")");
}

std::vector<std::string> Scene::builtinSceneNames() {
    std::vector<std::string> names;
    for (const BuiltinScene& scene : kBuiltinScenes)
        names.push_back(scene.name);
    return names;
}

}  // namespace wavefront
