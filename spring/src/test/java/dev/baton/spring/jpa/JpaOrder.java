package dev.baton.spring.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An order as a JPA entity, over the table {@link #TABLE}: what a Spring Data JPA service writes before Baton runs. */
@Entity
@Table(name = JpaOrder.TABLE)
public class JpaOrder {
    /** The table. */
    public static final String TABLE = "baton_jpa_orders";

    @Id
    private Long id;

    @Column(name = "status", nullable = false)
    private String status;

    protected JpaOrder() {}

    /** A new order with {@code status}. */
    public JpaOrder(long id, String status) {
        this.id = id;
        this.status = status;
    }

    /** The status this entity holds in the persistence context. */
    public String status() {
        return status;
    }
}
