"""The tests' own PostgreSQL server (tests/postgres.py) is real, and each database is new."""

from __future__ import annotations

import psycopg

from tests.postgres import PostgresServer


class TestPostgresServer:
    def test_a_real_server_answers(self, postgres: PostgresServer) -> None:
        """It runs SQL, in a transaction, and reports a PostgreSQL version."""
        with psycopg.connect(postgres.create_database()) as connection:
            connection.execute("CREATE TABLE t (n INTEGER)")
            connection.execute("INSERT INTO t VALUES (1), (2)")
            total = connection.execute("SELECT sum(n) FROM t").fetchone()
            version = connection.execute("SHOW server_version").fetchone()
        assert total == (3,)
        assert version is not None and int(str(version[0]).split(".")[0]) >= 13

    def test_each_database_starts_empty(self, postgres: PostgresServer) -> None:
        first, second = postgres.create_database(), postgres.create_database()
        assert first != second
        with psycopg.connect(second) as connection:
            tables = connection.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
            ).fetchone()
        assert tables == (0,)

    def test_only_loopback(self, postgres: PostgresServer) -> None:
        with psycopg.connect(postgres.dsn()) as connection:
            listen = connection.execute("SHOW listen_addresses").fetchone()
        assert listen == ("127.0.0.1",)
