# liboffload.so (versioned SONAME, only offload_* exported) and liboffload.a,
# both from offload_obj and the leaves (offload_leaf_obj). Neither contains a
# model: those are liboffload-sim's (src/sim/CMakeLists.txt).
get_property(_offload_libs GLOBAL PROPERTY OFFLOAD_LINK_LIBS)

# The 0.1 entry points 0.2 replaced (symbol versions exist only in a shared
# library): src/core/compat.c, compiled for liboffload.so alone.
add_library(offload SHARED $<TARGET_OBJECTS:offload_obj> $<TARGET_OBJECTS:offload_leaf_obj>
  ${PROJECT_SOURCE_DIR}/src/core/compat.c)
target_include_directories(offload PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include
  ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/backends
  ${LIBFDT_INCLUDE_DIR})
set_target_properties(offload PROPERTIES
  VERSION ${PROJECT_VERSION}
  SOVERSION ${OFFLOAD_SOVERSION}
  C_VISIBILITY_PRESET hidden
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

# liboffload.a as users get it: its objects linked into one relocatable
# object (ld -r) whose hidden symbols -- everything but the OFFLOAD_API
# functions -- are then made local (objcopy --localize-hidden), so that a
# program linking the archive beside its own udma_* or dspi_* code meets only
# offload_* names (the static counterpart of offload.map's local: *).
find_program(OFFLOAD_OBJCOPY NAMES ${CMAKE_OBJCOPY} objcopy REQUIRED)
set(_static_obj ${CMAKE_CURRENT_BINARY_DIR}/liboffload_static.o)
add_custom_command(OUTPUT ${_static_obj}
  COMMAND ${CMAKE_LINKER} -r -o ${_static_obj} $<TARGET_OBJECTS:offload_obj>
          $<TARGET_OBJECTS:offload_leaf_obj>
  COMMAND ${OFFLOAD_OBJCOPY} --localize-hidden ${_static_obj}
  DEPENDS offload_obj offload_leaf_obj $<TARGET_OBJECTS:offload_obj> $<TARGET_OBJECTS:offload_leaf_obj>
  COMMAND_EXPAND_LISTS
  COMMENT "Linking liboffload.a's single object, internal symbols local")
set_source_files_properties(${_static_obj} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
add_library(offload_static STATIC ${_static_obj})
set_target_properties(offload_static PROPERTIES OUTPUT_NAME offload LINKER_LANGUAGE C)
target_link_libraries(offload_static PUBLIC ${_offload_libs})
target_include_directories(offload_static INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

# The same objects with their internal symbols global, for the white-box
# tests and benchmarks that call ofl_* functions (never installed).
add_library(offload_static_internal STATIC $<TARGET_OBJECTS:offload_obj> $<TARGET_OBJECTS:offload_leaf_obj>)
target_link_libraries(offload_static_internal PUBLIC ${_offload_libs})
target_include_directories(offload_static_internal INTERFACE
  ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)

# For tests and tools inside the tree: the static library plus the internal
# headers (src/sim adds liboffload-sim's static variant when it is built).
add_library(offload_internal INTERFACE)
target_link_libraries(offload_internal INTERFACE offload_static_internal)
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
