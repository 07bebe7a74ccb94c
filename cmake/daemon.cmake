# cuzk-daemon, its gRPC client in cuzk-bench, and their tests.
#
# Optional: it needs the gRPC C core, protobuf-c (library and protoc-c),
# libmicrohttpd, toml11 and a C++ compiler (for the one-file toml11 shim);
# libsystemd is used when present (sd_notify). scripts/deps.sh installs all of
# them; when one is missing the daemon is skipped with a message and the core
# still builds.
option(CUZK_DAEMON "Build cuzk-daemon when its libraries are present" ON)
set(CUZK_HAVE_DAEMON OFF)
if(CUZK_DAEMON)
  find_package(PkgConfig QUIET)
  set(missing)
  if(PkgConfig_FOUND)
    pkg_check_modules(CUZK_GRPC QUIET IMPORTED_TARGET grpc)
    pkg_check_modules(CUZK_PROTOBUF_C QUIET IMPORTED_TARGET libprotobuf-c)
    pkg_check_modules(CUZK_MHD QUIET IMPORTED_TARGET libmicrohttpd)
    pkg_check_modules(CUZK_SYSTEMD QUIET IMPORTED_TARGET libsystemd)
  else()
    list(APPEND missing pkg-config)
  endif()
  find_program(CUZK_PROTOC_C protoc-c)
  find_path(CUZK_TOML11_INCLUDE toml.hpp)
  include(CheckLanguage)
  check_language(CXX)
  # Pairs of "variable that must be true" and the Debian package that provides it.
  foreach(pair CUZK_GRPC_FOUND:libgrpc-dev CUZK_PROTOBUF_C_FOUND:libprotobuf-c-dev
               CUZK_MHD_FOUND:libmicrohttpd-dev CUZK_PROTOC_C:protobuf-c-compiler
               CUZK_TOML11_INCLUDE:libtoml11-dev CMAKE_CXX_COMPILER:g++)
    string(REPLACE ":" ";" kv ${pair})
    list(GET kv 0 var)
    list(GET kv 1 pkg)
    if(NOT ${var})
      list(APPEND missing ${pkg})
    endif()
  endforeach()
  if(missing)
    list(JOIN missing " " missing_text)
    message(STATUS "cuzk: cuzk-daemon skipped, missing: ${missing_text} (scripts/deps.sh installs them)")
  else()
    set(CUZK_HAVE_DAEMON ON)
  endif()
endif()
message(STATUS "cuzk: daemon ${CUZK_HAVE_DAEMON}")

if(CUZK_HAVE_DAEMON)
  enable_language(CXX)
  set(CMAKE_CXX_STANDARD 17)
  set(gen "${CMAKE_BINARY_DIR}/proto")
  set(protos cuzk/v1/proving grpc/health/v1/health)
  set(proto_srcs)
  set(proto_files)
  foreach(p ${protos})
    list(APPEND proto_srcs "${gen}/${p}.pb-c.c")
    list(APPEND proto_files "${CMAKE_SOURCE_DIR}/proto/${p}.proto")
  endforeach()
  add_custom_command(
    OUTPUT ${proto_srcs}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${gen}"
    COMMAND ${CUZK_PROTOC_C} "--c_out=${gen}" "-I${CMAKE_SOURCE_DIR}/proto"
            cuzk/v1/proving.proto grpc/health/v1/health.proto
    DEPENDS ${proto_files}
    COMMENT "protoc-c: proving.proto, health.proto")
  add_library(cuzk_proto STATIC ${proto_srcs})
  target_include_directories(cuzk_proto PUBLIC "${gen}")
  target_link_libraries(cuzk_proto PUBLIC PkgConfig::CUZK_PROTOBUF_C)

  add_library(cuzk_daemon STATIC
    src/daemon/config.c src/daemon/status.c src/daemon/rpc.c
    src/daemon/http.c src/daemon/preflight.c src/daemon/toml_shim.cc)
  target_include_directories(cuzk_daemon PUBLIC "${CMAKE_SOURCE_DIR}/include"
                                                "${CMAKE_SOURCE_DIR}/src"
                                         PRIVATE "${CUZK_TOML11_INCLUDE}")
  target_compile_options(cuzk_daemon PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall> $<$<COMPILE_LANGUAGE:CXX>:-Wextra>
    $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  target_link_libraries(cuzk_daemon PUBLIC cuzk_engine cuzk_proto PkgConfig::CUZK_GRPC
                                           PkgConfig::CUZK_MHD m)

  add_executable(cuzk-daemon src/cmd/cuzk_daemon.c)
  target_link_libraries(cuzk-daemon PRIVATE cuzk_daemon)
  if(CUZK_SYSTEMD_FOUND)
    target_compile_definitions(cuzk-daemon PRIVATE CUZK_HAVE_SYSTEMD=1)
    target_link_libraries(cuzk-daemon PRIVATE PkgConfig::CUZK_SYSTEMD)
  endif()

  # The client subcommands of cuzk-bench (wait-ready, single, batch, status, ...).
  if(TARGET cuzk-bench)
    target_sources(cuzk-bench PRIVATE src/cmd/bench_client.c)
    target_compile_definitions(cuzk-bench PRIVATE CUZK_BENCH_CLIENT=1)
    target_link_libraries(cuzk-bench PRIVATE cuzk_daemon)
  endif()

  # Tests: unit tests of the daemon's pure-C parts, then integration tests
  # that start the real daemon and talk real gRPC (cuzk-bench and a Python
  # client generated from the proto).
  file(GLOB daemon_unit_tests CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/tests/daemon/test_*.c")
  foreach(t ${daemon_unit_tests})
    get_filename_component(tname ${t} NAME_WE)
    add_executable(${tname} ${t})
    target_include_directories(${tname} PRIVATE "${CMAKE_SOURCE_DIR}/tests/unit"
                                                "${CMAKE_SOURCE_DIR}/src")
    target_link_libraries(${tname} PRIVATE cuzk_daemon)
    add_test(NAME ${tname} COMMAND ${tname})
    set_tests_properties(${tname} PROPERTIES LABELS "unit;daemon;san" TIMEOUT 600
                         ENVIRONMENT "CUZK_TEST_TMP=${CMAKE_BINARY_DIR}/test-tmp")
  endforeach()
  if(TARGET cuzk-bench AND TARGET cuzk)
    add_test(NAME daemon_integration
             COMMAND bash "${CMAKE_SOURCE_DIR}/tests/daemon/test_daemon.sh"
                     $<TARGET_FILE:cuzk-daemon> $<TARGET_FILE:cuzk-bench> $<TARGET_FILE:cuzk>
                     "${CMAKE_BINARY_DIR}/test-tmp/daemon" "${CMAKE_SOURCE_DIR}")
    set_tests_properties(daemon_integration PROPERTIES LABELS "unit;daemon;san" TIMEOUT 1200)
    # The script tests that start the daemon: NAME SCRIPT TMP-FOLDER LABELS TIMEOUT.
    function(cuzk_daemon_script_test name script tmp labels timeout)
      add_test(NAME ${name}
               COMMAND bash "${CMAKE_SOURCE_DIR}/tests/daemon/${script}"
                       $<TARGET_FILE:cuzk-daemon> $<TARGET_FILE:cuzk-bench> $<TARGET_FILE:cuzk>
                       "${CMAKE_BINARY_DIR}/test-tmp/${tmp}")
      set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT ${timeout})
    endfunction()
    cuzk_daemon_script_test(daemon_operator test_operator.sh operator "unit;daemon;san" 900)
    cuzk_daemon_script_test(daemon_post test_post.sh daemon-post "unit;daemon;san" 900)
    cuzk_daemon_script_test(daemon_porep test_porep.sh daemon-porep "unit;daemon" 1500)
    cuzk_daemon_script_test(daemon_snap test_snap.sh daemon-snap "unit;daemon" 1500)
    cuzk_daemon_script_test(daemon_tls test_tls.sh daemon-tls "unit;daemon;san" 600)
    cuzk_daemon_script_test(daemon_fleet test_fleet.sh daemon-fleet "unit;daemon;san" 600)
    # Two daemons behind nginx: Debian's nginx on the PATH, or unpacked into
    # BUILD/deps/nginx by scripts/deps.sh (the test fails saying so if neither).
    find_program(CUZK_NGINX nginx PATHS "${CMAKE_BINARY_DIR}/deps/nginx/usr/sbin" /usr/sbin
                 NO_CACHE)
    if(NOT CUZK_NGINX)
      set(CUZK_NGINX "${CMAKE_BINARY_DIR}/deps/nginx/usr/sbin/nginx")
    endif()
    add_test(NAME daemon_nginx
             COMMAND bash "${CMAKE_SOURCE_DIR}/tests/daemon/test_nginx.sh"
                     $<TARGET_FILE:cuzk-daemon> $<TARGET_FILE:cuzk-bench> "${CUZK_NGINX}"
                     "${CMAKE_BINARY_DIR}/test-tmp/daemon-nginx" "${CMAKE_SOURCE_DIR}")
    set_tests_properties(daemon_nginx PROPERTIES LABELS "unit;daemon" TIMEOUT 900)
  endif()
endif()
