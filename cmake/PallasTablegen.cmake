# TableGen rules for the dialects and passes under include/pallas/.

# pallas_dialect_tablegen(<target> TD <Ops.td> PREFIX <Name> DIALECT <name>
#                         [TYPES] [ATTRS] [ENUMS])
# generates <Name>Ops, <Name>Dialect and, where asked, <Name>Types,
# <Name>Attrs and <Name>Enums (.h.inc and .cpp.inc) from one .td file.
function(pallas_dialect_tablegen target)
  cmake_parse_arguments(ARG "TYPES;ATTRS;ENUMS" "TD;PREFIX;DIALECT" "" ${ARGN})
  set(LLVM_TARGET_DEFINITIONS ${ARG_TD})
  mlir_tablegen(${ARG_PREFIX}Ops.h.inc -gen-op-decls)
  mlir_tablegen(${ARG_PREFIX}Ops.cpp.inc -gen-op-defs)
  mlir_tablegen(${ARG_PREFIX}Dialect.h.inc -gen-dialect-decls -dialect=${ARG_DIALECT})
  mlir_tablegen(${ARG_PREFIX}Dialect.cpp.inc -gen-dialect-defs -dialect=${ARG_DIALECT})
  if(ARG_TYPES)
    mlir_tablegen(${ARG_PREFIX}Types.h.inc -gen-typedef-decls -typedefs-dialect=${ARG_DIALECT})
    mlir_tablegen(${ARG_PREFIX}Types.cpp.inc -gen-typedef-defs -typedefs-dialect=${ARG_DIALECT})
  endif()
  if(ARG_ATTRS)
    mlir_tablegen(${ARG_PREFIX}Attrs.h.inc -gen-attrdef-decls -attrdefs-dialect=${ARG_DIALECT})
    mlir_tablegen(${ARG_PREFIX}Attrs.cpp.inc -gen-attrdef-defs -attrdefs-dialect=${ARG_DIALECT})
  endif()
  if(ARG_ENUMS)
    mlir_tablegen(${ARG_PREFIX}Enums.h.inc -gen-enum-decls)
    mlir_tablegen(${ARG_PREFIX}Enums.cpp.inc -gen-enum-defs)
  endif()
  add_public_tablegen_target(${target})
endfunction()

# pallas_pass_tablegen(<target> TD <Passes.td> NAME <Name>) generates
# <Passes>.h.inc (pass declarations and registration, group <Name>).
function(pallas_pass_tablegen target)
  cmake_parse_arguments(ARG "" "TD;NAME" "" ${ARGN})
  set(LLVM_TARGET_DEFINITIONS ${ARG_TD})
  get_filename_component(base ${ARG_TD} NAME_WE)
  mlir_tablegen(${base}.h.inc -gen-pass-decls -name ${ARG_NAME})
  add_public_tablegen_target(${target})
endfunction()
