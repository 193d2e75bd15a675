package dev.baton.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The start-up check for {@code binlog_format=STATEMENT}: exact SQL and the reading. */
class MySqlBinlogCheckTest {

    @Test
    void statementBinlogIsRefusedWithTheFix() {
        assertEquals("SELECT @@GLOBAL.log_bin, @@SESSION.binlog_format", MySqlDiagnostics.BINLOG_SQL);
        assertEquals(List.of(), MySqlDiagnostics.binlogProblems(true, "ROW"));
        assertEquals(List.of(), MySqlDiagnostics.binlogProblems(true, "MIXED"));
        assertEquals(List.of(), MySqlDiagnostics.binlogProblems(false, "STATEMENT"), "no binary log, no 1665");
        List<String> problems = MySqlDiagnostics.binlogProblems(true, "STATEMENT");
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).contains("1665") && problems.get(0).contains("binlog_format=ROW"));
    }
}
