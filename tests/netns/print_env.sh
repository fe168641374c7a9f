#!/usr/bin/env bash
# tests/netns/print_env.sh -- print what a rank got from gexrun: rank, size,
# two forwarded variables, one -x variable and the working directory.
echo "ENV $GEX_RANK/$GEX_SIZE [${GEX_TEST_FWD-unset}] [${GEX_TEST_MY_X-unset}] [${OTHER_X-unset}] $(pwd)"
