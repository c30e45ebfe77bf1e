#!/bin/sh
# Creates the compose stack's Temporal namespace when it is missing (temporalio/server makes
# none), registers Sobre's custom search attributes on it, retrying while the server starts,
# then waits until the frontend accepts a query on all four. Creating an attribute that already
# exists with the same type succeeds, so this runs on every `up`. Runs in the
# temporalio/admin-tools image; TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and
# TEMPORAL_NAMESPACE_RETENTION (how long closed workflows' histories are kept) come from the
# environment.
set -eu

tries=90
i=0
until timeout 15 temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1 ||
  timeout 15 temporal operator namespace create --namespace "$TEMPORAL_NAMESPACE" --retention "$TEMPORAL_NAMESPACE_RETENTION"; do
  i=$((i + 1))
  if [ "$i" -ge "$tries" ]; then
    echo "could not create namespace $TEMPORAL_NAMESPACE on $TEMPORAL_ADDRESS" >&2
    exit 1
  fi
  echo "Temporal not ready yet; retrying namespace $TEMPORAL_NAMESPACE in 2s"
  sleep 2
done

for attr in EnvelopeId:Keyword EnvelopeStatus:Keyword TeamId:Keyword WebhookId:KeywordList; do
  name=${attr%%:*} type=${attr#*:}
  i=0
  until timeout 15 temporal operator search-attribute create --name "$name" --type "$type"; do
    i=$((i + 1))
    if [ "$i" -ge "$tries" ]; then
      echo "could not register search attribute $name on $TEMPORAL_ADDRESS" >&2
      exit 1
    fi
    echo "Temporal not ready yet; retrying $name in 2s"
    sleep 2
  done
done

i=0
until timeout 15 temporal workflow count --query "EnvelopeId = '' AND EnvelopeStatus = '' AND TeamId = '' AND WebhookId = ''" >/dev/null; do
  i=$((i + 1))
  if [ "$i" -ge "$tries" ]; then
    echo "the search attributes are registered but $TEMPORAL_ADDRESS does not accept them in queries" >&2
    exit 1
  fi
  sleep 2
done
echo "search attributes EnvelopeId, EnvelopeStatus, TeamId, WebhookId registered on namespace $TEMPORAL_NAMESPACE"
