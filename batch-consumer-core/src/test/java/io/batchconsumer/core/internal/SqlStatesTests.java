package io.batchconsumer.core.internal;

import java.sql.BatchUpdateException;
import java.sql.SQLException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A duplicate key is found on the failure, in its causes and in the exceptions chained to any of
 * them (PostgreSQL's driver reports a batch's statement failure as the next exception of a
 * {@link BatchUpdateException}); other states, and chains that point at themselves, are not one.
 */
class SqlStatesTests {

	@Test
	void aDuplicateKeyIsFoundOnTheFailureItsCausesAndTheirChainedExceptions() {
		assertThat(SqlStates.isDuplicateKey(new SQLException("dup", "23505"))).isTrue();
		SQLException batch = new BatchUpdateException("batch failed", "XX000", new int[0]);
		batch.setNextException(new SQLException("dup", "23505"));
		assertThat(SqlStates.isDuplicateKey(batch)).isTrue();
		SQLException wrapped = new SQLException("wrapped", "HY000", batch);
		assertThat(SqlStates.isDuplicateKey(wrapped)).isTrue();
		SQLException viaCause = new SQLException("outer", "HY000", new SQLException("dup", "23000"));
		assertThat(SqlStates.isDuplicateKey(viaCause)).isTrue();
	}

	@Test
	void otherStatesAndSelfChainsAreNot() {
		assertThat(SqlStates.isDuplicateKey(new SQLException("deadlock", "40001"))).isFalse();
		assertThat(SqlStates.isDuplicateKey(new SQLException("no state"))).isFalse();
		SQLException self = new SQLException("self", "08006");
		self.setNextException(self);
		assertThat(SqlStates.isDuplicateKey(self)).isFalse();
	}

}
