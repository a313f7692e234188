# pallasc_add_kernel(<lib> KERNEL <file.mlir> SPEC <spec.json>
#                    TARGET <host | sm_XX[,sm_YY] | triton>
#                    [OPTIONS <pallasc options>...])
#
# Compiles a Pallas kernel with pallasc at build time, into
# <build dir>/<lib>.pallasc/, and defines library target <lib>: its include
# directories hold the generated header (<name>.h, <name> being the spec's
# "name", else its "kernel"). For host, <lib> is a static library holding
# the kernel's object, linked with threads and libm; for CUDA targets (and
# triton), an interface library linking CUDA::cuda_driver (the header
# embeds the cubins). OPTIONS go to pallasc as they are (--no-persistent,
# --host-cpu native, ...). The kernel is recompiled exactly when the kernel,
# the spec, pallasc, or another file pallasc read (its --depfile) changes.
# The project may enable C or C++ or both.
include_guard(GLOBAL)

function(pallasc_add_kernel lib)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "KERNEL;SPEC;TARGET" "OPTIONS")
  foreach(required KERNEL SPEC TARGET)
    if(NOT arg_${required})
      message(FATAL_ERROR "pallasc_add_kernel(${lib}): ${required} is required")
    endif()
  endforeach()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pallasc_add_kernel(${lib}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(kernel "${arg_KERNEL}" ABSOLUTE)
  get_filename_component(spec "${arg_SPEC}" ABSOLUTE)
  # The artifacts are named after the spec's "name" (default: "kernel").
  file(READ "${spec}" spec_text)
  string(JSON name ERROR_VARIABLE no_name GET "${spec_text}" name)
  if(no_name)
    string(JSON name ERROR_VARIABLE no_kernel GET "${spec_text}" kernel)
    if(no_kernel)
      message(FATAL_ERROR "pallasc_add_kernel(${lib}): ${spec} has no \"kernel\"")
    endif()
  endif()
  # Reconfigure when the spec changes (its name decides the file names).
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${spec}")

  set(out "${CMAKE_CURRENT_BINARY_DIR}/${lib}.pallasc")
  set(manifest "${out}/${name}.manifest.json")
  set(outputs "${manifest}" "${out}/${name}.h")
  if(arg_TARGET STREQUAL "host")
    list(APPEND outputs "${out}/${name}.o")
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND pallasc::pallasc "${kernel}" --spec "${spec}" -t ${arg_TARGET} -o "${out}"
            --depfile "${out}/${name}.d" ${arg_OPTIONS}
    DEPENDS "${kernel}" "${spec}" pallasc::pallasc
    DEPFILE "${out}/${name}.d"
    COMMENT "pallasc: ${name} for ${arg_TARGET}"
    VERBATIM)

  find_package(Threads REQUIRED)
  if(arg_TARGET STREQUAL "host")
    set_source_files_properties("${out}/${name}.o" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    add_library(${lib} STATIC "${out}/${name}.o" "${out}/${name}.h")
    # An archive of one object: whichever of C and C++ the project enabled
    # can create it.
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if("C" IN_LIST languages)
      set_target_properties(${lib} PROPERTIES LINKER_LANGUAGE C)
    elseif("CXX" IN_LIST languages)
      set_target_properties(${lib} PROPERTIES LINKER_LANGUAGE CXX)
    else()
      message(FATAL_ERROR "pallasc_add_kernel(${lib}): the project enables neither C nor CXX "
                          "(project(... LANGUAGES C) or CXX), which link the kernel's library")
    endif()
    target_link_libraries(${lib} INTERFACE Threads::Threads m)
  else()
    add_custom_target(${lib}_pallasc DEPENDS ${outputs})
    add_library(${lib} INTERFACE)
    add_dependencies(${lib} ${lib}_pallasc)
    find_package(CUDAToolkit REQUIRED)
    target_link_libraries(${lib} INTERFACE CUDA::cuda_driver Threads::Threads)
  endif()
  target_include_directories(${lib} INTERFACE "${out}")
endfunction()
