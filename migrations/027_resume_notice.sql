-- A computer told to work as usual after winding down (issue 45): a
-- wind-down ends by leaving <dont_request_more_work> out of the reply, with
-- no <suspend>0</suspend> (resume_pending stays false, so projects the
-- volunteer suspended by hand stay suspended), yet its next RPC should say
-- in the client's event log that it works as usual again. resume_notice
-- says that message is owed; the RPC that says it clears it.
ALTER TABLE hosts ADD COLUMN resume_notice boolean NOT NULL DEFAULT false;
