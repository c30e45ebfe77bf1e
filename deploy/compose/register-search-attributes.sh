#!/bin/sh
# Creates the compose stack's Temporal namespace when it is missing (temporalio/server makes
# none), registers Sobre's custom search attributes on it, retrying while the server starts,
# then waits until the frontend accepts a query on all four. Creating an attribute that already
# exists with the same type succeeds, so this runs on every `up`. Runs in the
# temporalio/admin-tools image; TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and
# TEMPORAL_NAMESPACE_RETENTION (how long closed workflows' histories are kept) come from the
# environment.
set -eu

# retry WHAT COMMAND...: runs COMMAND every 2 s until it succeeds, at most 90 times (3 minutes
# and the commands' own time), then gives up saying it could not WHAT.
retry() {
  what=$1
  shift
  i=0
  until "$@"; do
    i=$((i + 1))
    if [ "$i" -ge 90 ]; then
      echo "could not $what on $TEMPORAL_ADDRESS" >&2
      exit 1
    fi
    echo "Temporal not ready yet; retrying to $what in 2s"
    sleep 2
  done
}

namespace() {
  timeout 15 temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1 ||
    timeout 15 temporal operator namespace create --namespace "$TEMPORAL_NAMESPACE" --retention "$TEMPORAL_NAMESPACE_RETENTION"
}

queryable() {
  timeout 15 temporal workflow count --query "EnvelopeId = '' AND EnvelopeStatus = '' AND TeamId = '' AND WebhookId = ''" >/dev/null
}

retry "create namespace $TEMPORAL_NAMESPACE" namespace
for attr in EnvelopeId:Keyword EnvelopeStatus:Keyword TeamId:Keyword WebhookId:KeywordList; do
  name=${attr%%:*} type=${attr#*:}
  retry "register search attribute $name" timeout 15 temporal operator search-attribute create --name "$name" --type "$type"
done
retry "query the search attributes (registered, but not accepted in queries)" queryable
echo "search attributes EnvelopeId, EnvelopeStatus, TeamId, WebhookId registered on namespace $TEMPORAL_NAMESPACE"
