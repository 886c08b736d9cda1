/**
 * Fixtures shared by the tests of every module: {@link io.batchconsumer.testsupport.FaultyDataSource},
 * {@link io.batchconsumer.testsupport.SharedPostgres} and {@link io.batchconsumer.testsupport.SharedMariaDb}.
 */
package io.batchconsumer.testsupport;
