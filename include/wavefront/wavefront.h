// Everything a host program needs: #include <wavefront/wavefront.h>
#pragma once
#include "error.h"
#include "image.h"
#include "renderer.h"
#include "scene.h"
