# Installation of upswitch as a library (doc/library.md): the public headers under
# include/upswitch/ (the layout `#include "core/link.h"` and `#include "traffic/rng.h"` need), the
# static libraries, the `upswitch` program, a CMake package (find_package(upswitch): targets
# upswitch::model, upswitch::sc, upswitch::chakra, upswitch::app) and a pkg-config file (upswitch.pc).
include(CMakePackageConfigHelpers)

set(UPSWITCH_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/upswitch CACHE STRING
    "Where the CMake package of upswitch is installed, relative to the prefix")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/systemc/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/upswitch
        FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/traffic/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/upswitch/traffic
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/generated/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/upswitch)

install(TARGETS upswitch_model upswitch_sc upswitch_chakra upswitch_app
        EXPORT upswitchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS upswitch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(EXPORT upswitchTargets
        NAMESPACE upswitch::
        FILE upswitchTargets.cmake
        DESTINATION ${UPSWITCH_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/upswitchConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/upswitchConfig.cmake
                              INSTALL_DESTINATION ${UPSWITCH_INSTALL_CMAKEDIR})
# 0.x: a minor version may change the C++ interface, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/upswitchConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/upswitchConfig.cmake ${PROJECT_BINARY_DIR}/upswitchConfigVersion.cmake
        DESTINATION ${UPSWITCH_INSTALL_CMAKEDIR})

# pkg-config: the static libraries in link order, then what they need (SystemC, yaml-cpp, fmt,
# libpng and protobuf for the static link; nlohmann_json and CLI11 are header-only). @ONLY-configured at install time
# would lose a --prefix override, so the file uses ${pcfiledir} to find the prefix.
if(CMAKE_INTERPROCEDURAL_OPTIMIZATION)
  set(UPSWITCH_PC_LTO_NOTE "# Built with LTO (GCC ${CMAKE_CXX_COMPILER_VERSION}): link with the same compiler, and -flto.")
  set(UPSWITCH_PC_LTO_FLAG " -flto=auto")
else()
  set(UPSWITCH_PC_LTO_NOTE "# Built without LTO.")
  set(UPSWITCH_PC_LTO_FLAG "")
endif()
file(RELATIVE_PATH UPSWITCH_PC_PREFIX_FROM_PCDIR /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" UPSWITCH_PC_PREFIX_FROM_PCDIR "${UPSWITCH_PC_PREFIX_FROM_PCDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/upswitch.pc.in ${PROJECT_BINARY_DIR}/upswitch.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/upswitch.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
