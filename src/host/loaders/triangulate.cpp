// Ear clipping after Mapbox's earcut (its z-order hashing and its tests: a candidate ear is
// blocked by a reflex point inside it other than one at its first corner, which is what lets a
// polygon with a bridge to a hole, such as assimp's concave_polygon.obj, be clipped), written
// for one outline without holes and with a bounded amount of work.
#include "host/loaders/triangulate.h"

#include <algorithm>
#include <cmath>

namespace wavefront {

namespace {

struct Node {
    double x, y;
    std::uint32_t corner, z = 0;
    int prev, next, prevZ = -1, nextZ = -1;
    bool removed = false;
};

// Twice the signed area of (p, q, r): positive for a left (counter-clockwise) turn.
double cross(const Node& p, const Node& q, const Node& r) { return (q.x - p.x) * (r.y - q.y) - (q.y - p.y) * (r.x - q.x); }

bool samePoint(const Node& p, const Node& q) { return p.x == q.x && p.y == q.y; }

// Inside the counter-clockwise triangle (a, b, c), edges included.
bool inTriangle(const Node& a, const Node& b, const Node& c, const Node& p) {
    return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) >= 0 &&
           (c.x - b.x) * (p.y - b.y) - (c.y - b.y) * (p.x - b.x) >= 0 &&
           (a.x - c.x) * (p.y - c.y) - (a.y - c.y) * (p.x - c.x) >= 0;
}

// 16 bits of x and y interleaved.
std::uint32_t zOrder(std::uint32_t x, std::uint32_t y) {
    const auto spread = [](std::uint32_t v) {
        v = (v | (v << 8)) & 0x00FF00FFu;
        v = (v | (v << 4)) & 0x0F0F0F0Fu;
        v = (v | (v << 2)) & 0x33333333u;
        return (v | (v << 1)) & 0x55555555u;
    };
    return spread(x) | (spread(y) << 1);
}

class EarClipper {
public:
    EarClipper(std::vector<Node> nodes, std::vector<std::uint32_t>& out) : nodes_(std::move(nodes)), out_(out) {
        budget_ = 256 * std::uint64_t(nodes_.size()) + 65536;
    }

    bool run() {
        hashByZOrder();
        int ear = filter(0);
        if (ear < 0) return true;  // nothing with area is left
        int stop = ear;
        while (nodes_[ear].prev != nodes_[ear].next) {
            ++work_;
            const int prev = nodes_[ear].prev, next = nodes_[ear].next;
            if (isEar(ear)) {
                out_.insert(out_.end(), {nodes_[prev].corner, nodes_[ear].corner, nodes_[next].corner});
                remove(ear);
                // Skipping the next corner leaves fewer slivers (earcut).
                ear = stop = nodes_[next].next;
                continue;
            }
            if (work_ > budget_) return fanRest(ear);
            ear = next;
            if (ear == stop) {  // a full turn without an ear: drop flat corners, or give up
                const std::size_t before = removed_;
                ear = stop = filter(ear);
                if (ear < 0) return true;
                if (removed_ == before) return fanRest(ear);
            }
        }
        return true;
    }

private:
    void hashByZOrder() {
        double minX = nodes_[0].x, minY = nodes_[0].y, maxX = minX, maxY = minY;
        for (const Node& n : nodes_) {
            minX = std::min(minX, n.x), maxX = std::max(maxX, n.x);
            minY = std::min(minY, n.y), maxY = std::max(maxY, n.y);
        }
        const double extent = std::max(maxX - minX, maxY - minY);
        const double scale = extent > 0 ? 32767.0 / extent : 0.0;
        minX_ = minX, minY_ = minY, scale_ = scale;
        std::vector<int> order(nodes_.size());
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            nodes_[i].z = zOf(nodes_[i].x, nodes_[i].y);
            order[i] = int(i);
        }
        std::sort(order.begin(), order.end(), [&](int a, int b) { return nodes_[a].z < nodes_[b].z; });
        for (std::size_t k = 0; k < order.size(); ++k) {
            nodes_[order[k]].prevZ = k > 0 ? order[k - 1] : -1;
            nodes_[order[k]].nextZ = k + 1 < order.size() ? order[k + 1] : -1;
        }
    }

    std::uint32_t zOf(double x, double y) const {
        return zOrder(std::uint32_t((x - minX_) * scale_), std::uint32_t((y - minY_) * scale_));
    }

    void remove(int i) {
        Node& n = nodes_[i];
        nodes_[n.prev].next = n.next;
        nodes_[n.next].prev = n.prev;
        if (n.prevZ >= 0) nodes_[n.prevZ].nextZ = n.nextZ;
        if (n.nextZ >= 0) nodes_[n.nextZ].prevZ = n.prevZ;
        n.removed = true;
        ++removed_;
    }

    // Removes repeated corners and corners on a straight line through their neighbours, from
    // `start` on; returns a corner still there, or -1 when fewer than three are left.
    int filter(int start) {
        int p = start, end = start;
        for (;;) {
            ++work_;
            const Node& n = nodes_[p];
            if (n.next == n.prev) return -1;
            if (samePoint(n, nodes_[n.next]) || cross(nodes_[n.prev], n, nodes_[n.next]) == 0) {
                const int prev = n.prev;
                remove(p);
                p = end = prev;
                continue;
            }
            p = n.next;
            if (p == end) return p;
        }
    }

    // A reflex or flat corner inside the candidate ear (a, b, c) blocks it; one at a's place
    // does not (the two sides of a bridge).
    bool blocks(int i, const Node& a, const Node& b, const Node& c, int ia, int ic) const {
        const Node& p = nodes_[i];
        return i != ia && i != ic && !samePoint(p, a) && inTriangle(a, b, c, p) &&
               cross(nodes_[p.prev], p, nodes_[p.next]) <= 0;
    }

    bool isEar(int ib) {
        const Node &b = nodes_[ib], &a = nodes_[b.prev], &c = nodes_[b.next];
        if (cross(a, b, c) <= 0) return false;  // reflex or flat: no ear
        const double x0 = std::min({a.x, b.x, c.x}), x1 = std::max({a.x, b.x, c.x});
        const double y0 = std::min({a.y, b.y, c.y}), y1 = std::max({a.y, b.y, c.y});
        const std::uint32_t minZ = zOf(x0, y0), maxZ = zOf(x1, y1);
        const auto inBox = [&](const Node& p) { return p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1; };
        // Every point of the bounding box lies between minZ and maxZ on the curve.
        for (int p = b.prevZ; p >= 0 && nodes_[p].z >= minZ; p = nodes_[p].prevZ) {
            ++work_;
            if (inBox(nodes_[p]) && blocks(p, a, b, c, b.prev, b.next)) return false;
        }
        for (int n = b.nextZ; n >= 0 && nodes_[n].z <= maxZ; n = nodes_[n].nextZ) {
            ++work_;
            if (inBox(nodes_[n]) && blocks(n, a, b, c, b.prev, b.next)) return false;
        }
        return true;
    }

    bool fanRest(int start) {
        for (int k = nodes_[start].next; nodes_[k].next != start; k = nodes_[k].next)
            out_.insert(out_.end(), {nodes_[start].corner, nodes_[k].corner, nodes_[nodes_[k].next].corner});
        return false;
    }

    std::vector<Node> nodes_;
    std::vector<std::uint32_t>& out_;
    double minX_ = 0, minY_ = 0, scale_ = 0;
    std::uint64_t work_ = 0, budget_ = 0;
    std::size_t removed_ = 0;
};

}  // namespace

bool triangulatePolygon(const std::vector<glm::vec3>& corners, std::vector<std::uint32_t>& triangles) {
    const std::size_t n = corners.size();
    if (n < 3) return true;
    if (n == 3) {
        triangles.insert(triangles.end(), {0u, 1u, 2u});
        return true;
    }
    // Newell's normal, then the plane of the two other axes, turned so that the polygon runs
    // counter-clockwise in it.
    glm::dvec3 normal(0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const glm::dvec3 p(corners[i]), q(corners[(i + 1) % n]);
        normal += glm::dvec3((p.y - q.y) * (p.z + q.z), (p.z - q.z) * (p.x + q.x), (p.x - q.x) * (p.y + q.y));
    }
    const glm::dvec3 size = glm::abs(normal);
    const int axis = size.x > size.y && size.x > size.z ? 0 : size.y > size.z ? 1 : 2;
    const auto fan = [&](std::size_t first) {
        for (std::size_t k = first + 1; k + 1 < n; ++k)
            triangles.insert(triangles.end(), {0u, std::uint32_t(k), std::uint32_t(k + 1)});
    };
    if (!(size[axis] > 0.0) || !std::isfinite(size[axis])) {  // no area (or unusable coordinates)
        fan(0);
        return true;
    }
    int u = (axis + 1) % 3, v = (axis + 2) % 3;
    if (normal[axis] < 0) std::swap(u, v);
    std::vector<Node> nodes(n);
    for (std::size_t i = 0; i < n; ++i)
        nodes[i] = Node{double(corners[i][u]), double(corners[i][v]), std::uint32_t(i), 0,
                        int(i == 0 ? n - 1 : i - 1), int(i + 1 == n ? 0 : i + 1)};

    // Convex: every turn to the left, and the edges turn around once (their y direction changes
    // sign twice; a star's turns are all left too, but it turns around twice).
    bool convex = true;
    int flips = 0, firstSign = 0, lastSign = 0;
    for (std::size_t i = 0; i < n && convex; ++i) {
        const Node &p = nodes[i], &q = nodes[(i + 1) % n], &r = nodes[(i + 2) % n];
        convex = cross(p, q, r) >= 0;
        const double dy = q.y - p.y;
        const int sign = dy > 0 ? 1 : dy < 0 ? -1 : 0;
        if (sign != 0) {
            flips += lastSign != 0 && sign != lastSign;
            if (firstSign == 0) firstSign = sign;
            lastSign = sign;
        }
    }
    convex = convex && flips + (firstSign != lastSign) <= 2;
    if (convex && n == 4) {
        // Along the shorter diagonal, as tinyobjloader split quads.
        const glm::vec3 d02 = corners[2] - corners[0], d13 = corners[3] - corners[1];
        if (glm::dot(d02, d02) < glm::dot(d13, d13))
            triangles.insert(triangles.end(), {0u, 1u, 2u, 0u, 2u, 3u});
        else
            triangles.insert(triangles.end(), {0u, 1u, 3u, 1u, 2u, 3u});
        return true;
    }
    if (convex) {
        fan(0);
        return true;
    }
    return EarClipper(std::move(nodes), triangles).run();
}

}  // namespace wavefront
