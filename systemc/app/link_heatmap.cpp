#include "app/link_heatmap.h"

#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace upswitch::app {
namespace {

using Rgb = std::array<uint8_t, 3>;

// Viridis at five stops, linearly interpolated.
Rgb colour(double u) {
  static const double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  u = std::clamp(u, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(u));
  const double f = u - i;
  Rgb c{};
  for (int k = 0; k < 3; ++k) c[static_cast<size_t>(k)] = static_cast<uint8_t>(std::lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k])));
  return c;
}

void append(png_structp png, png_bytep data, png_size_t n) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), n);
}

[[noreturn]] void on_error(png_structp, png_const_charp msg) { throw std::runtime_error(std::string("PNG: ") + msg); }
void on_warning(png_structp, png_const_charp) {}

}  // namespace

std::string link_heatmap_png(const std::vector<std::vector<double>>& utilisation) {
  size_t ports = 1;
  for (const auto& row : utilisation) ports = std::max(ports, row.size());
  const size_t cell = std::clamp<size_t>(1024 / ports, 2, 16);
  const size_t rows = std::max<size_t>(1, utilisation.size());
  const size_t row_px = std::clamp<size_t>(2048 / rows, 1, cell);
  const size_t width = ports * cell, legend = 12, gap = 4;
  const size_t height = rows * row_px + gap + legend;
  std::vector<uint8_t> image(width * height * 3, 0);
  auto put = [&](size_t x, size_t y, const Rgb& c) {
    uint8_t* p = &image[(y * width + x) * 3];
    p[0] = c[0];
    p[1] = c[1];
    p[2] = c[2];
  };
  for (size_t s = 0; s < utilisation.size(); ++s)
    for (size_t q = 0; q < utilisation[s].size(); ++q) {
      const Rgb c = colour(utilisation[s][q]);
      // A one-pixel black border between cells when they are large enough to show it.
      for (size_t y = 0; y < row_px - (row_px > 3 ? 1 : 0); ++y)
        for (size_t x = 0; x < cell - (cell > 3 ? 1 : 0); ++x) put(q * cell + x, s * row_px + y, c);
    }
  for (size_t x = 0; x < width; ++x) {
    const Rgb c = colour(static_cast<double>(x) / static_cast<double>(width > 1 ? width - 1 : 1));
    for (size_t y = 0; y < legend; ++y) put(x, rows * row_px + gap + y, c);
  }

  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, on_error, on_warning);
  if (!png) throw std::runtime_error("PNG: cannot create the writer");
  png_infop info = png_create_info_struct(png);
  try {
    if (!info) throw std::runtime_error("PNG: cannot create the header");
    png_set_write_fn(png, &out, append, nullptr);
    png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (size_t y = 0; y < height; ++y) png_write_row(png, &image[y * width * 3]);
    png_write_end(png, nullptr);
  } catch (...) {
    png_destroy_write_struct(&png, &info);
    throw;
  }
  png_destroy_write_struct(&png, &info);
  return out;
}

}  // namespace upswitch::app
