# Install rules and the Debian package (CPack), included at the end of the top-level CMakeLists.txt.
#
#   cmake --install build --prefix /usr/local         installs everything below
#   (cd build && cpack -G DEB)                        preemptlab_<version>_<arch>.deb, and where the CUDA module
#                                                     was built, preemptlab-cuda_<version>_<arch>.deb
#   scripts/package-check.sh build                    builds the package, unpacks it and smoke-runs it
#
# Layout under the prefix:
#   bin/preemptlab-cli, bin/preemptlab (the lab, with PREEMPTLAB_GUI)
#   lib/preemptlab/libpreemptlab-cuda.so                    the CUDA module (component "cuda")
#   share/preemptlab/samples/                               the bundled workloads and the calibration example
#   share/doc/preemptlab/                                   README.md, LICENSE, ATTRIBUTION.md, docs/, Debian's
#                                                           copyright and changelog.Debian.gz (also in
#                                                           share/doc/preemptlab-cuda/ for the module's package)
#   share/bash-completion/completions/preemptlab-cli, share/zsh/vendor-completions/_preemptlab-cli,
#   share/man/man1/preemptlab-cli.1.gz                      made by the CLI from its command table (shell_files.h)
#   share/applications/preemptlab.desktop, share/mime/packages/preemptlab.xml,
#   share/icons/hicolor/{16x16..256x256,scalable}/apps/preemptlab.{png,svg}
#
# Two components: "preemptlab" (everything but the module) and "cuda" (the module). They become two Debian
# packages so that the first installs and runs on a machine without any CUDA library: the programs only dlopen
# the module, and dpkg-shlibdeps is run on the first package only (the module's libcudart and libcublas come
# from NVIDIA's installer, which Debian's dependency list cannot name).
include(GNUInstallDirs)

set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME preemptlab)
set(PREEMPTLAB_INSTALL_DATADIR ${CMAKE_INSTALL_DATAROOTDIR}/preemptlab)
set(PREEMPTLAB_INSTALL_DOCDIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/preemptlab)

install(TARGETS preemptlab-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT preemptlab)
if(PREEMPTLAB_GUI)
    install(TARGETS preemptlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT preemptlab)
endif()

if(TARGET preemptlab_cuda)
    # Literally lib/preemptlab, not CMAKE_INSTALL_LIBDIR (lib/x86_64-linux-gnu on Debian): the programs dlopen
    # the module from <exe dir>/../lib/libpreemptlab-cuda.so or <exe dir>/../lib/preemptlab/libpreemptlab-cuda.so
    # (gpu/), so it must sit at ../lib/preemptlab from bin/ whatever the distribution's library directory is.
    install(TARGETS preemptlab_cuda LIBRARY DESTINATION lib/preemptlab COMPONENT cuda)
endif()

# Samples: for the CLI and the file dialog. The lab's File > Samples reads its own copies, compiled in as Qt
# resources (ui/CMakeLists.txt), so it finds them wherever it is installed.
file(GLOB PREEMPTLAB_INSTALL_SAMPLES ${PROJECT_SOURCE_DIR}/samples/*.json)
install(FILES ${PREEMPTLAB_INSTALL_SAMPLES} ${PROJECT_SOURCE_DIR}/samples/ATTRIBUTION.md
        DESTINATION ${PREEMPTLAB_INSTALL_DATADIR}/samples COMPONENT preemptlab)

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
              ${PROJECT_SOURCE_DIR}/samples/ATTRIBUTION.md
        DESTINATION ${PREEMPTLAB_INSTALL_DOCDIR} COMPONENT preemptlab)
# Debian's copyright (DEP-5, resources/debian/copyright) and changelog.Debian.gz (gzip -9n: no name, no time, so
# the same bytes every build) in each package's doc folder.
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz
                   COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/debian
                   COMMAND gzip -9n -c ${PROJECT_SOURCE_DIR}/resources/debian/changelog >
                           ${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz
                   DEPENDS ${PROJECT_SOURCE_DIR}/resources/debian/changelog VERBATIM)
add_custom_target(preemptlab_debian_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz)
install(FILES ${PROJECT_SOURCE_DIR}/resources/debian/copyright ${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz
        DESTINATION ${PREEMPTLAB_INSTALL_DOCDIR} COMPONENT preemptlab)
if(TARGET preemptlab_cuda)
    install(FILES ${PROJECT_SOURCE_DIR}/resources/debian/copyright ${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz
            DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/preemptlab-cuda COMPONENT cuda)
endif()
# The shell completions and the manual page, made at build time by the CLI just built from its own command table
# (app/cli/shell_files.h), so they always match the program; the page gzipped as Debian wants it (-9n).
set(PREEMPTLAB_SHELL_DIR ${PROJECT_BINARY_DIR}/shell)
add_custom_command(OUTPUT ${PREEMPTLAB_SHELL_DIR}/preemptlab-cli ${PREEMPTLAB_SHELL_DIR}/_preemptlab-cli
                          ${PREEMPTLAB_SHELL_DIR}/preemptlab-cli.1.gz
                   COMMAND ${CMAKE_COMMAND} -E make_directory ${PREEMPTLAB_SHELL_DIR}
                   COMMAND $<TARGET_FILE:preemptlab-cli> completion bash --out ${PREEMPTLAB_SHELL_DIR}/preemptlab-cli
                   COMMAND $<TARGET_FILE:preemptlab-cli> completion zsh --out ${PREEMPTLAB_SHELL_DIR}/_preemptlab-cli
                   COMMAND $<TARGET_FILE:preemptlab-cli> man --out ${PREEMPTLAB_SHELL_DIR}/preemptlab-cli.1
                   COMMAND gzip -9nf ${PREEMPTLAB_SHELL_DIR}/preemptlab-cli.1
                   DEPENDS preemptlab-cli VERBATIM)
add_custom_target(preemptlab_shell_files ALL DEPENDS ${PREEMPTLAB_SHELL_DIR}/preemptlab-cli
                                                     ${PREEMPTLAB_SHELL_DIR}/_preemptlab-cli
                                                     ${PREEMPTLAB_SHELL_DIR}/preemptlab-cli.1.gz)
install(FILES ${PREEMPTLAB_SHELL_DIR}/preemptlab-cli
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions COMPONENT preemptlab)
install(FILES ${PREEMPTLAB_SHELL_DIR}/_preemptlab-cli
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/zsh/vendor-completions COMPONENT preemptlab)
install(FILES ${PREEMPTLAB_SHELL_DIR}/preemptlab-cli.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT preemptlab)

# docs/ keeps its name so that README.md's links (docs/contracts.md, docs/screenshots/lab.png) work installed.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${PREEMPTLAB_INSTALL_DOCDIR} COMPONENT preemptlab)

if(PREEMPTLAB_GUI)
    install(FILES ${PROJECT_SOURCE_DIR}/resources/preemptlab.desktop
            DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/applications COMPONENT preemptlab)
    install(FILES ${PROJECT_SOURCE_DIR}/resources/preemptlab-mime.xml
            DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/mime/packages RENAME preemptlab.xml COMPONENT preemptlab)
    install(FILES ${PROJECT_SOURCE_DIR}/resources/preemptlab.svg
            DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/icons/hicolor/scalable/apps COMPONENT preemptlab)

    # The hicolor PNG sizes are drawn from the SVG at build time by Qt's SVG renderer (resources/render_icon.cpp).
    set(PREEMPTLAB_ICON_SIZES 16 22 24 32 48 64 128 256)
    set(PREEMPTLAB_ICON_DIR ${PROJECT_BINARY_DIR}/icons/hicolor)
    add_executable(preemptlab_render_icon ${PROJECT_SOURCE_DIR}/resources/render_icon.cpp)
    target_link_libraries(preemptlab_render_icon PRIVATE Qt6::Gui Qt6::Svg preemptlab_warnings)
    set_target_properties(preemptlab_render_icon PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tools)
    set(PREEMPTLAB_ICON_PNGS)
    foreach(size IN LISTS PREEMPTLAB_ICON_SIZES)
        list(APPEND PREEMPTLAB_ICON_PNGS ${PREEMPTLAB_ICON_DIR}/${size}x${size}/apps/preemptlab.png)
    endforeach()
    add_custom_command(OUTPUT ${PREEMPTLAB_ICON_PNGS}
        # detect_leaks=0: in a PREEMPTLAB_SANITIZE build, Qt's own allocations left at exit must not fail the build.
        COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen ASAN_OPTIONS=detect_leaks=0
                $<TARGET_FILE:preemptlab_render_icon>
                ${PROJECT_SOURCE_DIR}/resources/preemptlab.svg ${PREEMPTLAB_ICON_DIR} ${PREEMPTLAB_ICON_SIZES}
        DEPENDS preemptlab_render_icon ${PROJECT_SOURCE_DIR}/resources/preemptlab.svg
        COMMENT "Drawing the hicolor icon sizes from resources/preemptlab.svg"
        VERBATIM)
    add_custom_target(preemptlab_icons ALL DEPENDS ${PREEMPTLAB_ICON_PNGS})
    foreach(size IN LISTS PREEMPTLAB_ICON_SIZES)
        install(FILES ${PREEMPTLAB_ICON_DIR}/${size}x${size}/apps/preemptlab.png
                DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/icons/hicolor/${size}x${size}/apps COMPONENT preemptlab)
    endforeach()
endif()

# --- CPack: Debian packages ------------------------------------------------------------------------------------
set(CPACK_PACKAGE_NAME preemptlab)
set(CPACK_PACKAGE_VENDOR "PreemptLab")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION}) # the one version number (cmake/version.h.in)
set(CPACK_PACKAGE_CONTACT "PreemptLab Dev <dev@preemptlab.local>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "KV-cache preemption lab for LLM serving: step a scheduler tick by tick")
set(CPACK_PACKAGE_DESCRIPTION
    "PreemptLab steps a KV-cache scheduler tick by tick and shows how a full block pool forces a running request out, whether recompute or swap brings it back cheaper, who starves, and what it cost. Every run is a replayable, SHA-256-hashed receipt. preemptlab is the Qt lab, preemptlab-cli the headless engine.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL preemptlab)
if(TARGET preemptlab_cuda)
    list(APPEND CPACK_COMPONENTS_ALL cuda)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # preemptlab_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

# preemptlab: Depends from dpkg-shlibdeps over the programs (on Debian 12: libqt6core6, libqt6gui6, libqt6widgets6,
# libqt6svg6, libqcustomplot2.1-qt6, libssl3, libstdc++6, libgcc-s1, libc6), plus Qt's platform plugins, which the
# lab loads at run time (libqt6gui6 only recommends them).
set(CPACK_DEBIAN_PREEMPTLAB_PACKAGE_NAME preemptlab)
set(CPACK_DEBIAN_PREEMPTLAB_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PREEMPTLAB_PACKAGE_SHLIBDEPS ON)
if(PREEMPTLAB_GUI)
    set(CPACK_DEBIAN_PREEMPTLAB_PACKAGE_DEPENDS "qt6-qpa-plugins")
endif()
if(TARGET preemptlab_cuda)
    set(CPACK_DEBIAN_PREEMPTLAB_PACKAGE_SUGGESTS "preemptlab-cuda (= ${PROJECT_VERSION})")
endif()

# preemptlab-cuda: live mode on an NVIDIA GPU. No dpkg-shlibdeps: the CUDA runtime and cuBLAS it needs are
# NVIDIA's (CUDA toolkit installer or repository), not Debian packages; without them the module fails to load
# and the programs say so (exit code 3), everything else works.
set(CPACK_DEBIAN_CUDA_PACKAGE_NAME preemptlab-cuda)
set(CPACK_DEBIAN_CUDA_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "preemptlab (= ${PROJECT_VERSION}), libc6, libstdc++6")
set(CPACK_DEBIAN_CUDA_DESCRIPTION "PreemptLab's CUDA module: live mode (real swap copies and prefill kernels on an NVIDIA GPU). Needs the CUDA runtime and cuBLAS of the toolkit it was built with, from NVIDIA.")
# CPackDeb puts CPACK_PACKAGE_DESCRIPTION_SUMMARY first, as the Description's summary line, in both packages.
set(CPACK_COMPONENT_PREEMPTLAB_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
include(CPack)
