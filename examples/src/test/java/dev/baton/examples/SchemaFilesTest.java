package dev.baton.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.examples.support.DatabaseKind;
import dev.baton.examples.support.ExampleSchema;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The two schema files declare the same tables, columns, unique keys and indexes (jOOQ is generated from one). */
class SchemaFilesTest {
    private static final Pattern TABLE = Pattern.compile("^CREATE TABLE (\\w+) \\((.*)\\)", Pattern.DOTALL);
    private static final Pattern INDEX = Pattern.compile("^CREATE (?:UNIQUE )?INDEX (\\w+) ON (\\w+) \\(([^)]*)\\)");

    @Test
    void postgresAndMariaDbDeclareTheSameSchema() {
        assertEquals(shape(DatabaseKind.POSTGRES), shape(DatabaseKind.MARIADB));
    }

    @Test
    void aCopyRenamesTablesIndexesAndConstraints() {
        List<String> ddl = ExampleSchema.withSuffix("t1").ddl(DatabaseKind.POSTGRES);
        assertTrue(ddl.get(0).startsWith("CREATE TABLE orders_t1 ("), ddl.get(0));
        assertTrue(ddl.get(0).contains("CONSTRAINT orders_payment_tx_uq_t1 UNIQUE (payment_transaction_id)"));
        assertTrue(ddl.contains("CREATE INDEX orders_sync_claim_ix_t1 ON orders_t1 (sync_status, payment_status, id)"));
        assertEquals(ExampleSchema.plain().ddl(DatabaseKind.POSTGRES).size(), ddl.size());
    }

    /** Table → columns, constraints and indexes, without types. */
    private static Map<String, String> shape(DatabaseKind kind) {
        Map<String, String> out = new TreeMap<>();
        for (String sql : ExampleSchema.plain().ddl(kind)) {
            Matcher t = TABLE.matcher(sql);
            Matcher i = INDEX.matcher(sql);
            if (t.find()) {
                StringBuilder shape = new StringBuilder();
                for (String part : t.group(2).split(",\\s*\\n")) {
                    String p = part.strip();
                    shape.append(p.startsWith("CONSTRAINT") ? p : p.split("\\s+")[0])
                            .append("; ");
                }
                out.put(t.group(1), shape.toString());
            } else if (i.find()) {
                out.put(i.group(2) + "." + i.group(1), i.group(3));
            } else {
                throw new AssertionError("unexpected statement: " + sql);
            }
        }
        assertEquals(
                ExampleSchema.TABLES.size(),
                out.keySet().stream().filter(k -> !k.contains(".")).count());
        return out;
    }
}
