import Foundation
import TandemHTTP
import TandemStore

/// `--signup off|open`: whether people make their own local account.
public enum SignupPolicy: String, Sendable, CaseIterable {
    /// Only the operator adds accounts (`tandem user add`).
    case off
    /// `POST /users` makes an account and signs it in.
    case open
}

/// Signing up (`POST /users {"name","password","displayName"?}`, with `--signup open`): the
/// account is made and a session of it started, as a sign-in would, on the heavy-work pool's
/// sign-in lane (the password is hashed with scrypt there). Each attempt counts toward the
/// address's `sessions` limit, so one address cannot make accounts faster than sessions.
extension AccountController {
    static let signupOff = APIError(.forbidden, "signup_off", "this server does not let people make their own account: ask its operator")

    func signUp(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let name: String, password: String, displayName: String?
        do throws(APIError) {
            guard configuration.signup == .open else { throw Self.signupOff }
            let body = try RequestBody.object(req)
            try body.allowOnly(["name", "password", "displayName"])
            guard let n = try body.string("name"), UserName.normalized(n) != nil else { throw .invalidField("name", "is required: \(UserName.rule)") }
            guard let p = try body.string("password"), UserName.acceptablePassword(p) else {
                throw .invalidField("password", "is required: \(UserName.passwordRule)")
            }
            displayName = try body.string("displayName")
            if let displayName, displayName.isEmpty || displayName.count > 100 { throw .invalidField("displayName", "must be 1 to 100 characters") }
            (name, password) = (n, p)
        } catch {
            return res.send(error.response)
        }
        let remember = Self.usesLoginCookie(req)
        service.heavyWork.async(lane: Self.signInLane) { [self] in
            let user: StoredUser
            do throws(Accounts.Failure) {
                user = try Accounts.add(name: name, displayName: displayName, password: password, to: store, now: service.now())
            } catch .exists {
                return res.send(APIError.conflict("name_taken", "a user with that name exists").response)
            } catch {
                logger.error("could not add a user: \(error)")
                return res.send(APIError.storageFailing.response)
            }
            res.send(startSession(of: user, updated: nil, remember: remember))
        }
    }
}
