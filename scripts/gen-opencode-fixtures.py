"""Writes fixtures/opencode/: an OpenCode SQLite database and the same sessions as 1.0.x and 0.5.x
storage trees, built from the schema in OpenCode's source (packages/opencode/src/session/session.sql.ts,
message-v2.ts) because no real OpenCode database or storage tree with a licence that allows copying
was found in a public repository. Run: python3 scripts/gen-opencode-fixtures.py"""
import json, os, shutil, sqlite3

OUT = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'opencode')
T0 = 1767225600000

def tok(i, o, r=0, cr=0, cw=0):
    return {"input": i, "output": o, "reasoning": r, "cache": {"read": cr, "write": cw}}

def user(mid, t, **kw):
    d = {"role": "user", "time": {"created": t}, "agent": "build", "model": {"providerID": "openai", "modelID": "gpt-5"}}
    d.update(kw)
    return (mid, d)

def asst(mid, t, parent, finish="stop", tokens=None, **kw):
    d = {"role": "assistant", "time": {"created": t, "completed": t + 900}, "parentID": parent, "modelID": "gpt-5",
         "providerID": "openai", "mode": "build", "agent": "build", "path": {"cwd": "/home/u/proj", "root": "/home/u/proj"},
         "cost": 0, "tokens": tokens or tok(0, 0), "finish": finish}
    d.update(kw)
    return (mid, d)

def tool(call, name, inp, out, t, compacted=None, status="completed"):
    state = {"status": status, "input": inp, "output": out, "title": name, "metadata": {}, "time": {"start": t, "end": t + 50}}
    if compacted: state["time"]["compacted"] = compacted
    return {"type": "tool", "callID": call, "tool": name, "state": state}

BIG = "\n".join(f"line {i}: " + "x" * 60 for i in range(40))

# ses_basic: two turns with tools; the first turn's read output was pruned before the third request.
basic = [
    (user("msg_b001", T0 + 1000), [{"type": "text", "text": "Read README.md and summarise it."}]),
    (asst("msg_b002", T0 + 2000, "msg_b001", finish="stop", tokens=tok(900, 60, 10, 100, 0)), [
        {"type": "step-start"},
        {"type": "reasoning", "text": "I should read the file first.", "time": {"start": T0 + 2000}},
        tool("call_1", "read", {"filePath": "README.md"}, BIG, T0 + 2100, compacted=T0 + 9000),
        {"type": "step-finish", "reason": "tool-calls", "tokens": tok(800, 40, 10, 0, 0), "cost": 0},
        {"type": "step-start"},
        {"type": "text", "text": "The README describes a small CLI."},
        {"type": "step-finish", "reason": "stop", "tokens": tok(900, 20, 0, 100, 0), "cost": 0},
    ]),
    (user("msg_b003", T0 + 10000), [{"type": "text", "text": "Now list the files."}]),
    (asst("msg_b004", T0 + 11000, "msg_b003", finish="stop", tokens=tok(300, 30)), [
        {"type": "step-start"},
        tool("call_2", "bash", {"command": "ls"}, "README.md\nsrc\n", T0 + 11100),
        {"type": "step-finish", "reason": "tool-calls", "tokens": tok(300, 10), "cost": 0},
        {"type": "step-start"},
        {"type": "text", "text": "Two entries: README.md and src."},
        {"type": "step-finish", "reason": "stop", "tokens": tok(350, 20), "cost": 0},
    ]),
]

# ses_compact: an automatic compaction keeping a tail, then a compaction that failed.
compact = [
    (user("msg_c001", T0 + 1000), [{"type": "text", "text": "Refactor the parser."}]),
    (asst("msg_c002", T0 + 2000, "msg_c001", tokens=tok(5000, 200)), [
        {"type": "step-start"}, {"type": "text", "text": "I refactored the parser."},
        {"type": "step-finish", "reason": "stop", "tokens": tok(5000, 200), "cost": 0}]),
    (user("msg_c003", T0 + 3000), [{"type": "text", "text": "Add tests for it."}]),
    (asst("msg_c004", T0 + 4000, "msg_c003", tokens=tok(9000, 300)), [
        {"type": "step-start"}, {"type": "text", "text": "Tests added."},
        {"type": "step-finish", "reason": "stop", "tokens": tok(9000, 300), "cost": 0}]),
    (user("msg_c005", T0 + 5000), [{"type": "compaction", "auto": True, "overflow": False, "tail_start_id": "msg_c003"}]),
    (asst("msg_c006", T0 + 6000, "msg_c005", summary=True, mode="compaction", agent="compaction", tokens=tok(9500, 400)), [
        {"type": "step-start"},
        {"type": "text", "text": "## Goal\nRefactor the parser and test it.\n## Accomplished\nParser refactored."},
        {"type": "step-finish", "reason": "stop", "tokens": tok(9500, 400), "cost": 0}]),
    (user("msg_c007", T0 + 7000), [{"type": "text", "text": "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.", "synthetic": True}]),
    (asst("msg_c008", T0 + 8000, "msg_c007", tokens=tok(1200, 50)), [
        {"type": "step-start"}, {"type": "text", "text": "All done."},
        {"type": "step-finish", "reason": "stop", "tokens": tok(1200, 50), "cost": 0}]),
    (user("msg_c009", T0 + 9000), [{"type": "compaction", "auto": False}]),
    (asst("msg_c010", T0 + 10000, "msg_c009", finish=None, summary=True, mode="compaction", agent="compaction",
          error={"name": "APIError", "data": {"message": "Service Unavailable", "statusCode": 503, "isRetryable": True}}),
     [{"type": "step-start"}]),
]

SESSIONS = [
    ("ses_basic", "Summarise the README", T0, basic),
    ("ses_compact", "Refactor the parser", T0 + 100, compact),
]

def write_db(path):
    for p in (path, path + "-wal", path + "-shm"):
        if os.path.exists(p): os.remove(p)
    db = sqlite3.connect(path)
    db.executescript("""
    create table project (id text primary key, worktree text not null, time_created integer not null, time_updated integer not null);
    create table session (id text primary key, project_id text not null, workspace_id text, parent_id text, slug text not null,
      directory text not null, title text not null, version text not null, share_url text, time_created integer not null,
      time_updated integer not null, time_compacting integer, time_archived integer);
    create table message (id text primary key, session_id text not null, time_created integer not null, time_updated integer not null, data text not null);
    create table part (id text primary key, message_id text not null, session_id text not null, time_created integer not null, time_updated integer not null, data text not null);
    create table account (id text primary key, email text not null, access_token text not null, refresh_token text not null);
    """)
    db.execute("insert into project values ('prj_1', '/home/u/proj', ?, ?)", (T0, T0))
    db.execute("insert into account values ('acc_1', 'user@example.invalid', 'not-a-real-token', 'not-a-real-token')")
    for sid, title, t, msgs in SESSIONS:
        db.execute("insert into session (id, project_id, slug, directory, title, version, time_created, time_updated) values (?,?,?,?,?,?,?,?)",
                   (sid, 'prj_1', sid, '/home/u/proj', title, '1.4.0', t, t + 20000))
        n = 0
        for (mid, info), parts in msgs:
            ct = info["time"]["created"]
            db.execute("insert into message values (?,?,?,?,?)", (mid, sid, ct, ct, json.dumps(info)))
            for p in parts:
                n += 1
                db.execute("insert into part values (?,?,?,?,?,?)", (f"prt_{sid[4:]}_{n:03d}", mid, sid, ct, ct, json.dumps(p)))
    # A row whose data is not JSON: reported with its table and id, skipped.
    db.execute("insert into part values ('prt_basic_bad', 'msg_b003', 'ses_basic', ?, ?, '{not json')", (T0 + 10000, T0 + 10000))
    db.commit()
    db.close()

def write_tree(root, old):
    if os.path.exists(root): shutil.rmtree(root)
    for sid, title, t, msgs in SESSIONS:
        info = {"id": sid, "version": "0.5.7" if old else "1.0.0", "projectID": "prj_1", "directory": "/home/u/proj", "title": title,
                "time": {"created": t, "updated": t + 20000}}
        sdir = os.path.join(root, "session", "info") if old else os.path.join(root, "session", "prj_1")
        os.makedirs(sdir, exist_ok=True)
        json.dump(info, open(os.path.join(sdir, sid + ".json"), "w"), indent=2)
        n = 0
        for (mid, minfo), parts in msgs:
            mdir = os.path.join(root, "session", "message", sid) if old else os.path.join(root, "message", sid)
            os.makedirs(mdir, exist_ok=True)
            json.dump({"id": mid, "sessionID": sid, **minfo}, open(os.path.join(mdir, mid + ".json"), "w"), indent=2)
            pdir = os.path.join(root, "session", "part", sid, mid) if old else os.path.join(root, "part", mid)
            os.makedirs(pdir, exist_ok=True)
            for p in parts:
                n += 1
                pid = f"prt_{sid[4:]}_{n:03d}"
                json.dump({"id": pid, "sessionID": sid, "messageID": mid, **p}, open(os.path.join(pdir, pid + ".json"), "w"), indent=2)

os.makedirs(OUT, exist_ok=True)
write_db(os.path.join(OUT, "opencode.db"))
write_tree(os.path.join(OUT, "storage-1.0", "storage"), old=False)
write_tree(os.path.join(OUT, "storage-0.5", "project", "global", "storage"), old=True)
