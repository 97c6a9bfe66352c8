à#!/usr/bin/env bash
# Caret lines (`# ^ â€¦`) assert which atom and scope the line above belongs to.
# Deploys a release to the hosts given on the command line.
set -euo pipefail

source "$(dirname "$0")/lib.sh"
. ./config.sh

readonly RELEASE_DIR=/srv/releases
# ^ gap

# Prints a message with a timestamp.
#   $1: the message
log() {
    printf '%s %s\n' "$(date +%H:%M:%S)" "$1" >&2
    # ^ symbol log
}

# Copies the release to one host, then switches the link.
function deploy_host {
    local host=$1
    log "deploying to $host"
    # ^ scope function deploy_host
    if ! rsync -az "$RELEASE_DIR/" "$host:$RELEASE_DIR/"; then
        log "rsync failed on $host"
        return 1
        # ^ symbol deploy_host
    fi
    ssh "$host" "ln -sfn $RELEASE_DIR/current /srv/app"
}

cleanup() (
    rm -rf "${TMPDIR:-/tmp}/deploy.$$"
    # ^ symbol cleanup
)

trap cleanup EXIT

# Completes host names for the script's arguments.
_deploy_hosts() {
    COMPREPLY=($(compgen -W "$(cat hosts.txt)" -- "${COMP_WORDS[COMP_CWORD]}"))
} &&
    complete -F _deploy_hosts deploy.sh
    # ^ symbol _deploy_hosts

for host in "$@"; do
    deploy_host "$host" || exit 1
    # ^ gap
done
