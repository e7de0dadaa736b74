# liboffload.so (versioned SONAME, only offload_* exported) and liboffload.a,
# both from offload_obj and the leaves (offload_leaf_obj). Neither contains a
# model: those are liboffload-sim's (src/sim/CMakeLists.txt).
get_property(_offload_libs GLOBAL PROPERTY OFFLOAD_LINK_LIBS)

add_library(offload SHARED $<TARGET_OBJECTS:offload_obj> $<TARGET_OBJECTS:offload_leaf_obj>)
set_target_properties(offload PROPERTIES
  VERSION ${PROJECT_VERSION}
  SOVERSION ${OFFLOAD_SOVERSION}
  LINK_DEPENDS ${PROJECT_SOURCE_DIR}/src/offload.map)
target_link_options(offload PRIVATE -Wl,--version-script=${PROJECT_SOURCE_DIR}/src/offload.map)
# Every symbol resolved at link time -- except in sanitizer builds: clang links
# its sanitizer runtime into executables only, and the library's __asan_* /
# __ubsan_* references are resolved from the executable when it loads.
if(NOT OFFLOAD_SANITIZE AND NOT OFFLOAD_FUZZ)
  target_link_options(offload PRIVATE -Wl,--no-undefined)
endif()
target_link_libraries(offload PRIVATE ${_offload_libs})
target_include_directories(offload INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

add_library(offload_static STATIC $<TARGET_OBJECTS:offload_obj> $<TARGET_OBJECTS:offload_leaf_obj>)
set_target_properties(offload_static PROPERTIES OUTPUT_NAME offload)
target_link_libraries(offload_static PUBLIC ${_offload_libs})
target_include_directories(offload_static INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

# For tests and tools inside the tree: the static library plus the internal
# headers (src/sim adds liboffload-sim's static variant when it is built).
add_library(offload_internal INTERFACE)
target_link_libraries(offload_internal INTERFACE offload_static)
target_include_directories(offload_internal INTERFACE
  ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/backends ${LIBFDT_INCLUDE_DIR})
get_target_property(_obj_defs offload_obj COMPILE_DEFINITIONS)
if(_obj_defs)
  target_compile_definitions(offload_internal INTERFACE ${_obj_defs})
endif()

install(TARGETS offload offload_static EXPORT offloadTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/offload DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "sim.h" EXCLUDE) # sim.h: liboffload-sim's (src/sim)
install(FILES ${PROJECT_BINARY_DIR}/include/offload/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/offload)

get_property(OFFLOAD_PC_REQUIRES_PRIVATE GLOBAL PROPERTY OFFLOAD_PC_REQUIRES_PRIVATE)
get_property(OFFLOAD_PC_LIBS_PRIVATE GLOBAL PROPERTY OFFLOAD_PC_LIBS_PRIVATE)
