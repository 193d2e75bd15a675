package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.baton.Baton;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.testkit.compat.Payment;
import java.sql.Types;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A transition by a text id on SQL Server, which cannot run here: mssql-jdbc sends text binds as NVARCHAR, which would
 * convert a VARCHAR id column and turn the id's index seek into a scan under update locks. Against a VARCHAR or CHAR
 * id column an ASCII id is cast to VARCHAR (the column's type read once from the recorded metadata); an NVARCHAR
 * column and a non-ASCII id keep the plain bind, which compares exactly. Pinned by exact text and parsed as T-SQL.
 */
class SqlServerTextBindTest {

    @Test
    void anAsciiIdIsCastToVarcharForAVarcharIdColumn() {
        SqlRecorder recorder = recorder(1, "varchar");
        StateTable<Payment> bills = bills(recorder);

        assertInstanceOf(
                TransitionResult.Applied.class,
                bills.transition("B-1001", Payment.PENDING, Payment.PAID).apply());
        assertInstanceOf(
                TransitionResult.Applied.class,
                bills.transition("B-1002", Payment.PENDING, Payment.PAID).apply());
        List<String> sql = recorder.take();
        String cast = "UPDATE [bills] SET [payment_status] = ? WHERE [bill_no] = CAST(? AS VARCHAR(8000))"
                + " AND [payment_status] = 0";
        assertEquals(List.of(cast, cast), sql);
        SqlServerSqlTest.parse(cast);

        // a value outside ASCII could change in the cast (the code page's '?'): it keeps the exact NVARCHAR bind
        bills.transition("B-\u00fc", Payment.PENDING, Payment.PAID).apply();
        assertEquals(
                List.of("UPDATE [bills] SET [payment_status] = ? WHERE [bill_no] = ? AND [payment_status] = 0"),
                recorder.take());
    }

    @Test
    void theReadThatExplainsARefusalUsesTheSameBind() {
        SqlRecorder recorder = recorder(0, "char");
        StateTable<Payment> bills = bills(recorder);

        TransitionResult<Payment> r =
                bills.transition("B-1001", Payment.PENDING, Payment.PAID).apply();
        assertInstanceOf(TransitionResult.Rejected.class, r, r.toString());
        List<String> sql = recorder.take();
        assertEquals(
                List.of(
                        "UPDATE [bills] SET [payment_status] = ? WHERE [bill_no] = CAST(? AS VARCHAR(8000))"
                                + " AND [payment_status] = 0",
                        "SELECT [payment_status] FROM [bills] WHERE [bill_no] = CAST(? AS VARCHAR(8000))"),
                sql);
        sql.forEach(SqlServerSqlTest::parse);
    }

    @Test
    void anNvarcharIdColumnAndANumericIdKeepThePlainBind() {
        SqlRecorder recorder = recorder(1, "nvarchar");
        bills(recorder).transition("B-1001", Payment.PENDING, Payment.PAID).apply();
        assertEquals(
                List.of("UPDATE [bills] SET [payment_status] = ? WHERE [bill_no] = ? AND [payment_status] = 0"),
                recorder.take());

        SqlRecorder numeric = recorder(1, "varchar");
        bills(numeric).transition(1001L, Payment.PENDING, Payment.PAID).apply();
        assertEquals(
                List.of("UPDATE [bills] SET [payment_status] = ? WHERE [bill_no] = ? AND [payment_status] = 0"),
                numeric.take());
    }

    private static StateTable<Payment> bills(SqlRecorder recorder) {
        return Baton.builder(recorder.dataSource())
                .dialect(new SqlServerDialect())
                .build()
                .table("bills")
                .id("bill_no")
                .state("payment_status", Payment.MACHINE);
    }

    /**
     * Updates report {@code count} rows; a read of the state finds FAILED; the table {@code bills}
     * has its id {@code bill_no} of type {@code idType}.
     */
    private static SqlRecorder recorder(int count, String idType) {
        SqlRecorder recorder = new SqlRecorder(
                count,
                text -> text.startsWith("SELECT [payment_status]")
                        ? List.<Object[]>of(new Object[] {Payment.MACHINE.code(Payment.FAILED)})
                        : List.of());
        recorder.columns = List.of(
                column("bill_no", idType.startsWith("n") ? Types.NVARCHAR : Types.VARCHAR, idType, 32),
                column("payment_status", Types.INTEGER, "int", 10));
        return recorder;
    }

    private static Map<String, Object> column(String name, int jdbcType, String typeName, int size) {
        Map<String, Object> c = new HashMap<>();
        c.put("COLUMN_NAME", name);
        c.put("DATA_TYPE", jdbcType);
        c.put("TYPE_NAME", typeName);
        c.put("COLUMN_SIZE", size);
        c.put("NULLABLE", 0);
        c.put("COLUMN_DEF", null);
        return c;
    }
}
