# ctest's layering_compile (tests/CMakeLists.txt): the include folders of each library let it see the modules it
# may use and no other. Compiles one-line probes with the C++ compiler and a library's include folders:
#   ui/ and core/ see core's headers; ui/ cannot see gpu/; gpu/ cannot see ui/; core/ sees neither.
# A probe that should compile and does not, or should fail and compiles (or fails for another reason), fails
# the test with the compiler's output.
# usage: cmake -DCXX=... -DWORK=DIR -DCORE_DIRS=... -DUI_DIRS=... -DGPU_DIRS=... -P LayeringProbe.cmake
foreach(var CXX WORK CORE_DIRS UI_DIRS GPU_DIRS)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "LayeringProbe.cmake: -D${var}=... is required")
    endif()
endforeach()
file(MAKE_DIRECTORY ${WORK})

# probe(NAME DIRS HEADER EXPECT): EXPECT is "compiles" or "missing" (the header is not on the include path).
function(probe name dirs header expect)
    set(src ${WORK}/${name}.cpp)
    file(WRITE ${src} "#include \"${header}\"\n")
    set(flags -std=c++20 -fsyntax-only)
    foreach(d IN LISTS dirs)
        list(APPEND flags -I${d})
    endforeach()
    execute_process(COMMAND ${CXX} ${flags} ${src} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(expect STREQUAL "compiles" AND NOT rc EQUAL 0)
        message(FATAL_ERROR "${name}: #include \"${header}\" should compile with these include folders and did not:\n${out}")
    elseif(expect STREQUAL "missing" AND (rc EQUAL 0 OR NOT out MATCHES "No such file or directory"))
        message(FATAL_ERROR "${name}: #include \"${header}\" should not be found (a forbidden crossing) and was:\n${out}")
    endif()
    message(STATUS "${name}: #include \"${header}\" ${expect}, as it should")
endfunction()

string(REPLACE "|" ";" CORE_DIRS "${CORE_DIRS}")
string(REPLACE "|" ";" UI_DIRS "${UI_DIRS}")
string(REPLACE "|" ";" GPU_DIRS "${GPU_DIRS}")
probe(core_sees_core "${CORE_DIRS}" "core/errors.h" compiles)
probe(core_cannot_see_ui "${CORE_DIRS}" "ui/labdocument.h" missing)
probe(core_cannot_see_gpu "${CORE_DIRS}" "gpu/device_api.h" missing)
probe(ui_sees_core "${UI_DIRS}" "core/errors.h" compiles)
probe(ui_cannot_see_gpu "${UI_DIRS}" "gpu/device_api.h" missing)
probe(gpu_sees_core "${GPU_DIRS}" "core/errors.h" compiles)
probe(gpu_cannot_see_ui "${GPU_DIRS}" "ui/labdocument.h" missing)
