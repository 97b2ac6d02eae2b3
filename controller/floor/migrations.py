"""The floor's store schema in PostgreSQL, as the migrations the owner applies in order
(docs/floor.md, The store; ``controller.floor.store.setup`` applies them and grants). Each is
one version: a new version is appended, never an applied one edited, since a store already at
it would never see the edit."""

from __future__ import annotations

from typing import Final

#: The schema, one entry a version (1, 2, ...): never edit one applied, add the next.
MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: the records, what the floor derives from them, its alarms and clock offsets.
    """
    CREATE TABLE tables (
        table_id text PRIMARY KEY,
        first_seen timestamptz NOT NULL,
        last_seen timestamptz NOT NULL
    );
    CREATE TABLE journals (
        table_id text NOT NULL REFERENCES tables,
        journal_id text NOT NULL,
        first_seen timestamptz NOT NULL,
        -- The chain head: the last record linked without a gap from seq 1 (0: none yet).
        head_seq bigint NOT NULL DEFAULT 0,
        head_hash text,
        -- The hand the records at the head are part of (NULL: none begun).
        current_hand integer,
        PRIMARY KEY (table_id, journal_id)
    );
    CREATE TABLE records (
        table_id text NOT NULL,
        journal_id text NOT NULL,
        seq bigint NOT NULL,
        ts timestamptz NOT NULL,
        kind text NOT NULL,
        line bytea NOT NULL,
        hash text NOT NULL,
        prev text NOT NULL,
        received_at timestamptz NOT NULL,
        broker_at timestamptz,
        -- False while held beyond a gap in the chain (docs/floor.md, The witness).
        linked boolean NOT NULL,
        PRIMARY KEY (table_id, journal_id, seq),
        FOREIGN KEY (table_id, journal_id) REFERENCES journals
    );
    CREATE INDEX records_held ON records (table_id, journal_id) WHERE NOT linked;
    CREATE TABLE hands (
        table_id text NOT NULL,
        journal_id text NOT NULL,
        hand integer NOT NULL,
        game text,
        started_seq bigint,
        started_at timestamptz,
        stakes jsonb,
        rules jsonb,
        seats jsonb,
        dealer integer,
        cards jsonb NOT NULL DEFAULT '[]',
        actions jsonb NOT NULL DEFAULT '[]',
        pots jsonb,
        settlement jsonb,
        finished boolean NOT NULL DEFAULT false,
        voided boolean NOT NULL DEFAULT false,
        last_seq bigint NOT NULL,
        PRIMARY KEY (table_id, journal_id, hand)
    );
    CREATE TABLE alarms (
        id bigserial PRIMARY KEY,
        table_id text NOT NULL,
        journal_id text NOT NULL,
        seq bigint NOT NULL,
        -- 'table': an Alarm event the table journaled; 'floor': the witness's.
        source text NOT NULL CHECK (source IN ('table', 'floor')),
        kind text NOT NULL,
        message text NOT NULL,
        evidence bytea,
        held_hash text,
        evidence_hash text NOT NULL,
        raised_at timestamptz NOT NULL,
        UNIQUE (table_id, journal_id, seq, source, kind, evidence_hash)
    );
    CREATE TABLE devices (
        table_id text NOT NULL,
        journal_id text NOT NULL,
        seq bigint NOT NULL,
        at timestamptz NOT NULL,
        device text NOT NULL,
        event text NOT NULL,
        outcome text,
        boot text,
        serial text,
        reason text,
        detail jsonb NOT NULL,
        PRIMARY KEY (table_id, journal_id, seq)
    );
    CREATE TABLE clock_offsets (
        table_id text NOT NULL REFERENCES tables,
        window_start timestamptz NOT NULL,
        -- min(receipt - record ts) over the window, in ms: the floor's clock, the broker's.
        min_floor_ms double precision NOT NULL,
        min_broker_ms double precision,
        samples bigint NOT NULL,
        PRIMARY KEY (table_id, window_start)
    );
    CREATE VIEW chain_heads AS
        SELECT DISTINCT ON (table_id) table_id, journal_id, head_seq, head_hash
        FROM journals ORDER BY table_id, first_seen DESC;
    """,
    # 2: which software each table ran, the digests approved, the tables' keys
    # (docs/floor.md, Software and keys; controller/floor/software.py, keys.py).
    """
    CREATE TABLE software (
        table_id text NOT NULL,
        journal_id text NOT NULL,
        seq bigint NOT NULL,
        at timestamptz NOT NULL,
        version text NOT NULL,
        digest text NOT NULL,
        -- The product's files and the configuration's: path -> SHA-256 hex.
        files jsonb NOT NULL,
        config jsonb NOT NULL,
        PRIMARY KEY (table_id, journal_id, seq),
        FOREIGN KEY (table_id, journal_id) REFERENCES journals
    );
    -- The owner's alone to change (floor software approve|revoke): the writer reads it.
    CREATE TABLE approved_software (
        digest text PRIMARY KEY,
        version text NOT NULL,
        note text NOT NULL,
        approved_by text NOT NULL,
        approved_at timestamptz NOT NULL,
        -- Kept when revoked, for the record of what was approved when.
        revoked_at timestamptz
    );
    CREATE TABLE table_keys (
        table_id text NOT NULL,
        key_id text NOT NULL,
        public_key text NOT NULL,
        registered_at timestamptz NOT NULL,
        -- The database user who registered it, or 'rotation by <key id>'.
        registered_by text NOT NULL,
        retired_at timestamptz,
        PRIMARY KEY (table_id, key_id)
    );
    -- One key in force a table.
    CREATE UNIQUE INDEX table_keys_in_force ON table_keys (table_id) WHERE retired_at IS NULL;
    """,
    # 3: least privilege (docs/floor.md, The roles). floor serve's role loses UPDATE on every
    # table but two columns that are no evidence (a table's last_seen, the clock offsets' least
    # values): what must move moves through these functions, which run as the schema's owner
    # (SECURITY DEFINER, search_path fixed so no object of the caller's is found first) and only
    # move it forward: a chain's head advances to a record the store holds with that hash, a
    # record held beyond a gap is marked linked (never unlinked), a hand grows as derive says, a
    # key is rotated only by a stored table_key record naming the key in force as its previous.
    # The key registry and the approved software change only through the owner's functions,
    # called with the name of the person who does it (tablectl floor key register, floor
    # software approve|revoke), each change appended to key_changes or software_changes.
    # Refusals: 42501 not allowed, 22023 a bad value, 23514 a head or key that would not move
    # forward.
    """
    CREATE TABLE key_changes (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT clock_timestamp(),
        -- The person named (--by), or 'floor serve' for a rotation the previous key signed.
        actor text NOT NULL,
        db_user text NOT NULL DEFAULT session_user,
        table_id text NOT NULL,
        key_id text NOT NULL,
        -- 'registered', 'retired', 'rotated in by <key id> (journal J, record N)', ...
        change text NOT NULL
    );
    CREATE TABLE software_changes (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT clock_timestamp(),
        actor text NOT NULL,
        db_user text NOT NULL DEFAULT session_user,
        digest text NOT NULL,
        -- 'approved' or 'revoked'.
        change text NOT NULL,
        version text,
        note text
    );
    -- What the registry and the approvals held before their change logs began.
    INSERT INTO key_changes (at, actor, db_user, table_id, key_id, change)
        SELECT registered_at, registered_by, registered_by, table_id, key_id,
            'registered (before the change log)' FROM table_keys ORDER BY registered_at;
    INSERT INTO key_changes (at, actor, db_user, table_id, key_id, change)
        SELECT retired_at, registered_by, registered_by, table_id, key_id,
            'retired (before the change log)' FROM table_keys WHERE retired_at IS NOT NULL
            ORDER BY retired_at;
    INSERT INTO software_changes (at, actor, db_user, digest, change, version, note)
        SELECT approved_at, approved_by, approved_by, digest, 'approved (before the change log)',
            version, note FROM approved_software ORDER BY approved_at;
    INSERT INTO software_changes (at, actor, db_user, digest, change, version, note)
        SELECT revoked_at, approved_by, approved_by, digest, 'revoked (before the change log)',
            version, note FROM approved_software WHERE revoked_at IS NOT NULL ORDER BY revoked_at;

    -- The heads of the journals named, locked for the caller's transaction in one order (two
    -- floor processes cannot deadlock), with the prev of the record at each head.
    CREATE FUNCTION public.floor_lock_heads(tables text[], journals text[])
    RETURNS TABLE (table_id text, journal_id text, head_seq bigint, head_hash text,
        current_hand integer, prev text)
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        SELECT j.table_id, j.journal_id, j.head_seq, j.head_hash, j.current_hand, r.prev
        FROM public.journals j JOIN unnest(tables, journals) AS k(t, jn)
        ON j.table_id = k.t AND j.journal_id = k.jn
        LEFT JOIN public.records r ON r.table_id = j.table_id
        AND r.journal_id = j.journal_id AND r.seq = j.head_seq
        ORDER BY j.table_id, j.journal_id FOR UPDATE OF j
    $$;

    -- Each head named moved to (seq, hash), set-wise: never backwards, and only onto a record
    -- the store holds with that hash; the same seq keeps its hash. One refused refuses all.
    CREATE FUNCTION public.floor_advance_heads(tables text[], journals text[], seqs bigint[],
        hashes text[], hands integer[]) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        bad record;
    BEGIN
        SELECT u.t, u.jn, u.s, j.head_seq AS was INTO bad
            FROM unnest(tables, journals, seqs, hashes) AS u(t, jn, s, h)
            LEFT JOIN public.journals j ON j.table_id = u.t AND j.journal_id = u.jn
            WHERE j.table_id IS NULL OR u.s IS NULL OR u.s < j.head_seq
            OR (u.s = j.head_seq AND u.h IS DISTINCT FROM j.head_hash)
            OR (u.s > j.head_seq AND NOT EXISTS (SELECT 1 FROM public.records r
                WHERE r.table_id = u.t AND r.journal_id = u.jn AND r.seq = u.s
                AND r.hash = u.h))
            LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'table % journal %: its head is at record %, and moves only forward, '
                'onto a record the store holds with that hash (not to %)',
                bad.t, bad.jn, coalesce(bad.was::text, 'none'), coalesce(bad.s::text, 'none')
                USING ERRCODE = 'check_violation';
        END IF;
        UPDATE public.journals j SET head_seq = u.s, head_hash = u.h, current_hand = u.c
            FROM unnest(tables, journals, seqs, hashes, hands) AS u(t, jn, s, h, c)
            WHERE j.table_id = u.t AND j.journal_id = u.jn;
    END $$;

    -- Records held beyond a gap that the chain now reaches: marked linked, never unlinked.
    CREATE FUNCTION public.floor_link_records(tables text[], journals text[], seqs bigint[])
    RETURNS void
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        UPDATE public.records r SET linked = true
        FROM unnest(tables, journals, seqs) AS k(t, jn, s)
        WHERE r.table_id = k.t AND r.journal_id = k.jn AND r.seq = k.s AND NOT r.linked
    $$;

    -- The batch's hands as derive gives them (controller/floor/ingest.py, _hand_columns): a
    -- hand's cards and actions appended to, its flags only set, its last seq only raised.
    CREATE FUNCTION public.floor_upsert_hands(t text[], jn text[], n integer[], g text[],
        ss bigint[], sa timestamptz[], st text, ru text, se text, d integer[], c text, a text,
        p text, sl text, f boolean[], v boolean[], ls bigint[]) RETURNS void
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        INSERT INTO public.hands AS hands (table_id, journal_id, hand, game, started_seq,
            started_at, stakes, rules, seats, dealer, cards, actions, pots, settlement,
            finished, voided, last_seq)
        SELECT h.t, h.jn, h.n, h.g, h.ss, h.sa, h.st::jsonb, h.ru::jsonb, h.se::jsonb, h.d,
            h.c::jsonb, h.a::jsonb, h.p::jsonb, h.sl::jsonb, h.f, h.v, h.ls
        FROM unnest(t, jn, n, g, ss, sa, string_to_array(st, E'\\n', '-'),
            string_to_array(ru, E'\\n', '-'), string_to_array(se, E'\\n', '-'), d,
            string_to_array(c, E'\\n', '-'), string_to_array(a, E'\\n', '-'),
            string_to_array(p, E'\\n', '-'), string_to_array(sl, E'\\n', '-'), f, v, ls)
            AS h(t, jn, n, g, ss, sa, st, ru, se, d, c, a, p, sl, f, v, ls)
        ON CONFLICT (table_id, journal_id, hand) DO UPDATE SET
            game = coalesce(EXCLUDED.game, hands.game),
            started_seq = coalesce(EXCLUDED.started_seq, hands.started_seq),
            started_at = coalesce(EXCLUDED.started_at, hands.started_at),
            stakes = coalesce(EXCLUDED.stakes, hands.stakes),
            rules = coalesce(EXCLUDED.rules, hands.rules),
            seats = coalesce(EXCLUDED.seats, hands.seats),
            dealer = coalesce(EXCLUDED.dealer, hands.dealer),
            cards = hands.cards || EXCLUDED.cards, actions = hands.actions || EXCLUDED.actions,
            pots = coalesce(EXCLUDED.pots, hands.pots),
            settlement = coalesce(hands.settlement, '{}'::jsonb) || EXCLUDED.settlement,
            finished = hands.finished OR EXCLUDED.finished,
            voided = hands.voided OR EXCLUDED.voided,
            last_seq = greatest(hands.last_seq, EXCLUDED.last_seq)
    $$;

    -- A rotation journaled by the table: the stored table_key record (table, journal, seq)
    -- names the new key and, as its previous, the key in force, which is retired. floor serve
    -- checks the previous key's signature over the hand-over before it calls this (PostgreSQL
    -- has no Ed25519); floor verify checks it again from the stored record.
    CREATE FUNCTION public.floor_key_rotate(p_table text, p_journal text, p_seq bigint)
    RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        data jsonb;
        in_force text;
    BEGIN
        SELECT convert_from(r.line, 'UTF8')::jsonb -> 'data' INTO data FROM public.records r
            WHERE r.table_id = p_table AND r.journal_id = p_journal AND r.seq = p_seq
            AND r.kind = 'table_key';
        IF data IS NULL OR data ->> 'previous' IS NULL OR data ->> 'key_id' IS NULL
            OR data ->> 'public_key' IS NULL OR data ->> 'rotation_signature' IS NULL THEN
            RAISE EXCEPTION 'table % journal % record %: not a stored table_key record of a '
                'rotation', p_table, p_journal, p_seq USING ERRCODE = 'invalid_parameter_value';
        END IF;
        SELECT k.key_id INTO in_force FROM public.table_keys k
            WHERE k.table_id = p_table AND k.retired_at IS NULL FOR UPDATE;
        IF in_force IS DISTINCT FROM data ->> 'previous' THEN
            RAISE EXCEPTION 'table % record %: a rotation from key %, not the key in force (%)',
                p_table, p_seq, data ->> 'previous', coalesce(in_force, 'none')
                USING ERRCODE = 'check_violation';
        END IF;
        UPDATE public.table_keys SET retired_at = now()
            WHERE table_id = p_table AND key_id = in_force;
        INSERT INTO public.table_keys AS k (table_id, key_id, public_key, registered_at,
            registered_by)
            VALUES (p_table, data ->> 'key_id', data ->> 'public_key', now(),
                'rotation by ' || in_force || ' (record ' || p_seq || ')')
            ON CONFLICT (table_id, key_id) DO UPDATE SET retired_at = NULL,
            registered_at = EXCLUDED.registered_at, registered_by = EXCLUDED.registered_by;
        INSERT INTO public.key_changes (actor, table_id, key_id, change) VALUES
            ('floor serve', p_table, in_force, 'retired by a rotation (journal ' || p_journal
                || ', record ' || p_seq || ')'),
            ('floor serve', p_table, data ->> 'key_id', 'rotated in by ' || in_force
                || ' (journal ' || p_journal || ', record ' || p_seq || ')');
    END $$;

    CREATE FUNCTION public.floor_checked_actor(actor text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        IF actor IS NULL OR btrim(actor) = '' OR length(actor) > 200 THEN
            RAISE EXCEPTION 'who makes the change: expected a person''s name (--by)'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        RETURN btrim(actor);
    END $$;

    -- tablectl floor key register: the key in force for the table (the one before retired).
    -- Returns the key retired, or the key itself when it was in force already (nothing done).
    CREATE FUNCTION public.floor_key_register(actor text, p_table text, p_key_id text,
        p_public_key text) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        who text := public.floor_checked_actor(actor);
        was text;
    BEGIN
        IF p_table IS NULL OR p_table = '' OR p_key_id IS NULL OR p_key_id !~ '^[0-9a-f]{16}$'
            OR p_public_key IS NULL OR p_public_key !~ '^[0-9a-f]{64}$' THEN
            RAISE EXCEPTION 'the table and key: expected a table id, a 16-hex-digit key id and '
                'a 64-hex-digit public key' USING ERRCODE = 'invalid_parameter_value';
        END IF;
        SELECT k.key_id INTO was FROM public.table_keys k
            WHERE k.table_id = p_table AND k.retired_at IS NULL FOR UPDATE;
        IF was = p_key_id THEN
            RETURN was;
        END IF;
        IF was IS NOT NULL THEN
            UPDATE public.table_keys SET retired_at = now()
                WHERE table_id = p_table AND key_id = was;
            INSERT INTO public.key_changes (actor, table_id, key_id, change)
                VALUES (who, p_table, was, 'retired by the registration of ' || p_key_id);
        END IF;
        INSERT INTO public.table_keys AS k (table_id, key_id, public_key, registered_at,
            registered_by) VALUES (p_table, p_key_id, p_public_key, now(), who)
            ON CONFLICT (table_id, key_id) DO UPDATE SET retired_at = NULL,
            registered_at = now(), registered_by = who, public_key = EXCLUDED.public_key;
        INSERT INTO public.key_changes (actor, table_id, key_id, change)
            VALUES (who, p_table, p_key_id, 'registered');
        RETURN was;
    END $$;

    -- tablectl floor software approve: false when approved already (nothing done).
    CREATE FUNCTION public.floor_software_approve(actor text, p_digest text, p_version text,
        p_note text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        who text := public.floor_checked_actor(actor);
    BEGIN
        IF p_digest IS NULL OR p_digest !~ '^[0-9a-f]{64}$' OR btrim(coalesce(p_version, '')) = ''
            OR btrim(coalesce(p_note, '')) = '' THEN
            RAISE EXCEPTION 'the approval: expected a 64-hex-digit digest, a version and a note'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        INSERT INTO public.approved_software AS a (digest, version, note, approved_by,
            approved_at) VALUES (p_digest, btrim(p_version), btrim(p_note), who, now())
            ON CONFLICT (digest) DO UPDATE SET version = EXCLUDED.version,
            note = EXCLUDED.note, approved_by = EXCLUDED.approved_by,
            approved_at = EXCLUDED.approved_at, revoked_at = NULL
            WHERE a.revoked_at IS NOT NULL;
        IF NOT FOUND THEN
            RETURN false;
        END IF;
        INSERT INTO public.software_changes (actor, digest, change, version, note)
            VALUES (who, p_digest, 'approved', btrim(p_version), btrim(p_note));
        RETURN true;
    END $$;

    -- tablectl floor software revoke: false when the digest is not approved (nothing done).
    CREATE FUNCTION public.floor_software_revoke(actor text, p_digest text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        who text := public.floor_checked_actor(actor);
    BEGIN
        UPDATE public.approved_software SET revoked_at = now()
            WHERE digest = p_digest AND revoked_at IS NULL;
        IF NOT FOUND THEN
            RETURN false;
        END IF;
        INSERT INTO public.software_changes (actor, digest, change) VALUES (who, p_digest,
            'revoked');
        RETURN true;
    END $$;

    REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
    """,
)
