#!/usr/bin/env python3
"""sarif_check.py FILE: checks a SARIF log against what the SARIF 2.1.0
schema (sarif-schema-2.1.0.json, OASIS) requires of the objects
yobx-export writes, and what GitHub code scanning adds.  Standard library
only; prints one line per problem and exits 1 if there is any.

From the schema: sarifLog requires version ("2.1.0") and runs; run requires
tool; tool requires driver; toolComponent requires name; reportingDescriptor
requires id; result requires message; message requires text or id;
multiformatMessageString requires text; invocation requires
executionSuccessful; physicalLocation needs artifactLocation (or address);
region.startLine and startColumn are integers >= 1; artifactLocation.index
and result.ruleIndex are integers >= -1; level is none, note, warning or
error; the objects allow no properties beyond the schema's.  Beyond the
schema: ruleId and ruleIndex agree with the rules, artifactLocation.index
points at an artifact with the same uri, rule ids are unique, and every
result has a physical location (GitHub rejects results without one)."""
import json
import sys

LEVELS = {"none", "note", "warning", "error"}
# Properties each object may have (subset of the schema's lists that covers
# every one we write; a property outside the schema would be an error).
ALLOWED = {
    "log": {"$schema", "version", "runs", "inlineExternalProperties", "properties"},
    "run": {"tool", "invocations", "conversion", "language", "versionControlProvenance",
            "originalUriBaseIds", "artifacts", "logicalLocations", "graphs", "results",
            "automationDetails", "runAggregates", "baselineGuid", "redactionTokens",
            "defaultEncoding", "defaultSourceLanguage", "newlineSequences", "columnKind",
            "externalPropertyFileReferences", "threadFlowLocations", "taxonomies", "addresses",
            "translations", "policies", "webRequests", "webResponses", "specialLocations",
            "properties"},
    "tool": {"driver", "extensions", "properties"},
    "driver": {"guid", "name", "organization", "product", "productSuffix", "shortDescription",
               "fullDescription", "fullName", "version", "semanticVersion", "dottedQuadFileVersion",
               "releaseDateUtc", "downloadUri", "informationUri", "globalMessageStrings",
               "notifications", "rules", "taxa", "locations", "language", "contents",
               "isComprehensive", "localizedDataSemanticVersion", "minimumRequiredLocalizedDataSemanticVersion",
               "associatedComponent", "translationMetadata", "supportedTaxonomies", "properties"},
    "rule": {"id", "deprecatedIds", "guid", "deprecatedGuids", "name", "deprecatedNames",
             "shortDescription", "fullDescription", "messageStrings", "defaultConfiguration",
             "helpUri", "help", "relationships", "properties"},
    "config": {"enabled", "level", "rank", "parameters", "properties"},
    "mfms": {"text", "markdown", "properties"},
    "invocation": {"commandLine", "arguments", "responseFiles", "startTimeUtc", "endTimeUtc",
                   "exitCode", "ruleConfigurationOverrides", "notificationConfigurationOverrides",
                   "toolExecutionNotifications", "toolConfigurationNotifications", "exitCodeDescription",
                   "exitSignalName", "exitSignalNumber", "processStartFailureMessage",
                   "executionSuccessful", "machine", "account", "processId", "executableLocation",
                   "workingDirectory", "environmentVariables", "stdin", "stdout", "stderr",
                   "stdoutStderr", "properties"},
    "artifact": {"description", "location", "parentIndex", "offset", "length", "roles", "mimeType",
                 "contents", "encoding", "sourceLanguage", "hashes", "lastModifiedTimeUtc", "properties"},
    "artifactLocation": {"uri", "uriBaseId", "index", "description", "properties"},
    "result": {"ruleId", "ruleIndex", "rule", "kind", "level", "message", "analysisTarget",
               "locations", "guid", "correlationGuid", "occurrenceCount", "partialFingerprints",
               "fingerprints", "stacks", "codeFlows", "graphs", "graphTraversals", "relatedLocations",
               "suppressions", "baselineState", "rank", "attachments", "hostedViewerUri",
               "workItemUris", "provenance", "fixes", "taxa", "webRequest", "webResponse", "properties"},
    "message": {"text", "markdown", "id", "arguments", "properties"},
    "location": {"id", "physicalLocation", "logicalLocations", "message", "annotations",
                 "relationships", "properties"},
    "physicalLocation": {"address", "artifactLocation", "region", "contextRegion", "properties"},
    "region": {"startLine", "startColumn", "endLine", "endColumn", "charOffset", "charLength",
               "byteOffset", "byteLength", "snippet", "message", "sourceLanguage", "properties"},
    "logicalLocation": {"name", "index", "fullyQualifiedName", "decoratedName", "parentIndex", "kind",
                        "properties"},
}
ROLES = {"analysisTarget", "attachment", "responseFile", "resultFile", "standardStream",
         "tracedFile", "unmodified", "modified", "added", "deleted", "renamed", "uncontrolled",
         "driver", "extension", "translation", "taxonomy", "policy", "referencedOnCommandLine",
         "memoryContents", "directory", "userSpecifiedConfiguration", "toolSpecifiedConfiguration",
         "debugOutputFile"}

problems = []


def bad(where, what):
    problems.append(f"{where}: {what}")


def obj(v, kind, where, required=()):
    if not isinstance(v, dict):
        bad(where, f"expected an object ({kind})")
        return False
    for k in v:
        if k not in ALLOWED[kind]:
            bad(where, f"property '{k}' is not in the schema's {kind}")
    for k in required:
        if k not in v:
            bad(where, f"missing required '{k}'")
    return True


def is_int(v, low):
    return isinstance(v, int) and not isinstance(v, bool) and v >= low


def string(v, where):
    if not isinstance(v, str):
        bad(where, "expected a string")


def mfms(v, where):
    if obj(v, "mfms", where, ("text",)):
        string(v.get("text"), where + ".text")


def check_run(run, w):
    if not obj(run, "run", w, ("tool",)):
        return
    tool = run.get("tool")
    if not obj(tool, "tool", w + ".tool", ("driver",)):
        return
    drv = tool.get("driver")
    if not obj(drv, "driver", w + ".tool.driver", ("name",)):
        return
    string(drv.get("name"), w + ".tool.driver.name")
    rules = drv.get("rules", [])
    ids = []
    for i, r in enumerate(rules):
        rw = f"{w}.tool.driver.rules[{i}]"
        if not obj(r, "rule", rw, ("id",)):
            continue
        string(r.get("id"), rw + ".id")
        ids.append(r.get("id"))
        for k in ("shortDescription", "fullDescription", "help"):
            if k in r:
                mfms(r[k], f"{rw}.{k}")
        if "defaultConfiguration" in r and obj(r["defaultConfiguration"], "config", rw + ".defaultConfiguration"):
            lv = r["defaultConfiguration"].get("level", "warning")
            if lv not in LEVELS:
                bad(rw, f"level '{lv}' is not one of {sorted(LEVELS)}")
    if len(set(ids)) != len(ids):
        bad(w, "rule ids are not unique")
    arts = run.get("artifacts", [])
    for i, a in enumerate(arts):
        aw = f"{w}.artifacts[{i}]"
        if obj(a, "artifact", aw) and "location" in a:
            obj(a["location"], "artifactLocation", aw + ".location")
            for role in a.get("roles", []):
                if role not in ROLES:
                    bad(aw, f"role '{role}' is not a SARIF artifact role")
    for i, inv in enumerate(run.get("invocations", [])):
        iw = f"{w}.invocations[{i}]"
        if obj(inv, "invocation", iw, ("executionSuccessful",)) and not isinstance(inv["executionSuccessful"], bool):
            bad(iw, "executionSuccessful must be a boolean")
    results = run.get("results")
    if not isinstance(results, list):
        bad(w, "results: expected an array")
        return
    for i, res in enumerate(results):
        check_result(res, f"{w}.results[{i}]", rules, arts)


def check_result(res, w, rules, arts):
    if not obj(res, "result", w, ("message",)):
        return
    msg = res["message"]
    if obj(msg, "message", w + ".message") and "text" not in msg and "id" not in msg:
        bad(w + ".message", "needs text or id")
    if "level" in res and res["level"] not in LEVELS:
        bad(w, f"level '{res['level']}' is not one of {sorted(LEVELS)}")
    if "ruleIndex" in res:
        k = res["ruleIndex"]
        if not is_int(k, -1):
            bad(w, "ruleIndex must be an integer >= -1")
        elif k >= len(rules):
            bad(w, f"ruleIndex {k} is past the {len(rules)} rules")
        elif k >= 0 and rules[k].get("id") != res.get("ruleId"):
            bad(w, f"ruleId {res.get('ruleId')} is not rules[{k}].id ({rules[k].get('id')})")
    elif "ruleId" in res and res["ruleId"] not in [r.get("id") for r in rules]:
        bad(w, f"ruleId {res['ruleId']} names no rule")
    locs = res.get("locations", [])
    if not locs or not any("physicalLocation" in l for l in locs if isinstance(l, dict)):
        bad(w, "no physical location (GitHub code scanning needs one)")
    for j, loc in enumerate(locs):
        lw = f"{w}.locations[{j}]"
        if not obj(loc, "location", lw):
            continue
        pl = loc.get("physicalLocation")
        if pl is not None and obj(pl, "physicalLocation", lw + ".physicalLocation"):
            if "artifactLocation" not in pl and "address" not in pl:
                bad(lw, "physicalLocation needs artifactLocation or address")
            al = pl.get("artifactLocation")
            if al is not None and obj(al, "artifactLocation", lw + ".artifactLocation"):
                string(al.get("uri", ""), lw + ".artifactLocation.uri")
                if "index" in al:
                    if not is_int(al["index"], -1) or al["index"] >= len(arts):
                        bad(lw, f"artifactLocation.index {al['index']} names no artifact")
                    elif al["index"] >= 0 and arts[al["index"]].get("location", {}).get("uri") != al.get("uri"):
                        bad(lw, "artifactLocation.uri differs from the artifact it indexes")
            rg = pl.get("region")
            if rg is not None and obj(rg, "region", lw + ".region"):
                for k in ("startLine", "startColumn", "endLine", "endColumn"):
                    if k in rg and not is_int(rg[k], 1):
                        bad(lw + ".region", f"{k} must be an integer >= 1")
        for m, ll in enumerate(loc.get("logicalLocations", [])):
            if obj(ll, "logicalLocation", f"{lw}.logicalLocations[{m}]"):
                for k in ("name", "fullyQualifiedName", "kind"):
                    if k in ll:
                        string(ll[k], f"{lw}.logicalLocations[{m}].{k}")


def main(path):
    try:
        log = json.load(open(path, encoding="utf-8"))
    except (OSError, ValueError) as e:
        print(f"{path}: not JSON: {e}")
        return 1
    if obj(log, "log", "log", ("version", "runs")):
        if log.get("version") != "2.1.0":
            bad("log.version", f"is {log.get('version')!r}, not '2.1.0'")
        if not isinstance(log.get("runs"), list):
            bad("log.runs", "expected an array")
        else:
            for i, run in enumerate(log["runs"]):
                check_run(run, f"runs[{i}]")
    for p in problems:
        print(f"{path}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
